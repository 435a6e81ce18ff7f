import type { Db } from '../db/client.js';
import type { Logger } from '../lib/logger.js';

/** Turns pending invitations for a verified address into memberships (the user module implements it). */
export interface InvitationActivator {
  activateInvitations(user: { id: string; email: string; name: string; isSuperadmin: boolean }): Promise<number>;
}

/**
 * What a sign-in changes besides the session: an address in SUPERADMIN_EMAILS
 * makes the user superadmin, and pending invitations for the address become
 * memberships. Both only for an address the identity provider verified, or
 * anyone could claim them by registering that address somewhere. Runs on every
 * sign-in, so it is idempotent; a failure is logged and does not stop the
 * sign-in.
 */
export function createSignInRules({
  db,
  users,
  superadminEmails,
  log,
}: {
  db: Db;
  users: InvitationActivator;
  superadminEmails: readonly string[];
  log: Logger;
}) {
  return async function afterSignIn(userId: string): Promise<void> {
    try {
      const user = await db.user.findUnique({ where: { id: userId } });
      if (!user) return;
      if (!user.emailVerified) {
        log.warn({ userId }, 'signed in with an unverified e-mail address: no invitations or superadmin rights apply');
        return;
      }
      let isSuperadmin = user.isSuperadmin;
      if (!isSuperadmin && superadminEmails.includes(user.email.toLowerCase())) {
        await db.user.update({ where: { id: user.id }, data: { isSuperadmin: true } });
        isSuperadmin = true;
        log.info({ userId }, 'superadmin by SUPERADMIN_EMAILS');
      }
      const activated = await users.activateInvitations({ id: user.id, email: user.email, name: user.name, isSuperadmin });
      if (activated > 0) log.info({ userId, memberships: activated }, 'activated invitations on sign-in');
    } catch (error) {
      log.error({ err: error, userId }, 'sign-in rules failed; the user is signed in without them');
    }
  };
}
