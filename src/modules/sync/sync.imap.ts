/**
 * Reading a mailbox over IMAP (imapflow) and parsing its messages
 * (mailparser). The server's address is checked as webhook receivers are:
 * the name is resolved once, the address judged, and that very address
 * connected to (TLS still verifies the name), so DNS rebinding cannot move
 * the connection onto the machine or its network.
 */
import net from 'node:net';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { resolveOutbound } from '../../lib/outbound.js';

export interface MailboxAddress {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  mailbox: string;
}

export interface MailAttachment {
  fileName: string | undefined;
  contentType: string;
  content: Buffer;
}

export interface MailMessage {
  uid: number;
  messageId: string;
  from: string | undefined;
  attachments: MailAttachment[];
}

/** Something about the mailbox a person must fix (address, password, mailbox name), in words for `lastError`. */
export class MailboxProblem extends Error {}

export interface OpenMailbox {
  uidValidity: bigint;
  /** UIDs above `afterUid`, oldest first, from `sender` when given, at most `limit`. */
  newUids(afterUid: number, sender: string | null, limit: number): Promise<number[]>;
  /** One message, parsed; undefined when it is gone. */
  message(uid: number): Promise<MailMessage | undefined>;
  close(): Promise<void>;
}

/** Connects, signs in and opens the mailbox read-only. */
export async function openMailbox(address: MailboxAddress, { allowPrivate }: { allowPrivate: boolean }): Promise<OpenMailbox> {
  const resolved = await resolveOutbound(address.host, { allowPrivate });
  if ('problem' in resolved) throw new MailboxProblem(`The IMAP server ${address.host} ${resolved.problem}`);
  const target = resolved.address;
  const client = new ImapFlow({
    host: target,
    port: address.port,
    secure: address.secure,
    // TLS verifies the name the user gave, though the connection goes to the address checked above.
    servername: net.isIP(address.host) === 0 ? address.host : false,
    auth: { user: address.username, pass: address.password },
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
    disableAutoIdle: true,
  } as ConstructorParameters<typeof ImapFlow>[0]);
  // Errors on an idle socket surface through the awaited calls; an unhandled 'error' event would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    const failed = error as { authenticationFailed?: boolean; code?: string; message?: string };
    client.close();
    if (failed.authenticationFailed) throw new MailboxProblem(`The IMAP server refused the username or password (${address.username})`);
    throw new MailboxProblem(`Cannot connect to the IMAP server ${address.host}:${address.port}: ${failed.code ?? failed.message ?? String(error)}`);
  }
  let uidValidity: bigint;
  try {
    const opened = await client.mailboxOpen(address.mailbox, { readOnly: true });
    uidValidity = BigInt(opened.uidValidity);
  } catch (error) {
    await client.logout().catch(() => client.close());
    throw new MailboxProblem(`The mailbox "${address.mailbox}" cannot be opened: ${(error as Error).message}`);
  }
  return {
    uidValidity,
    async newUids(afterUid, sender, limit) {
      // `n:*` always matches the newest message, even when its UID is below n: filter again.
      const found = await client.search({ uid: `${afterUid + 1}:*`, ...(sender ? { from: sender } : {}) }, { uid: true });
      return (found || [])
        .filter((uid) => uid > afterUid)
        .sort((a, b) => a - b)
        .slice(0, limit);
    },
    async message(uid) {
      const fetched = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
      if (!fetched || !fetched.source) return undefined;
      const parsed = await simpleParser(fetched.source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
      const from = parsed.from?.value[0]?.address;
      return {
        uid,
        messageId: parsed.messageId ?? `<uid-${uidValidity}-${uid}@${address.host}>`,
        from,
        attachments: parsed.attachments.map((attachment) => ({
          fileName: attachment.filename,
          contentType: attachment.contentType,
          content: attachment.content,
        })),
      };
    },
    async close() {
      await client.logout().catch(() => client.close());
    },
  };
}
