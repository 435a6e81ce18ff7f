/**
 * The role-to-permission matrix, as data. Every check in the service (GraphQL
 * scopes, REST, jobs, the CLI) reads it here.
 *
 * A grant is (action, subject) and may be limited to the caller's own
 * records (`own`): what "own" means is up to the subject's service (the
 * author of a note, the owner of an entry, the assignee of a task...).
 * `manage` stands for read, create, update and delete; `approve` (reviewing
 * submitted entries) and `reopen` (taking an approved entry back to draft)
 * are separate.
 */
import { defineEnum } from '../lib/vocabulary.js';

const crud = ['read', 'create', 'update', 'delete', 'manage'] as const;

/** What can be done to each subject: a pair outside this list does not compile. */
export const statements = {
  Tenant: ['read', 'update'],
  TenantUser: crud,
  Entry: [...crud, 'approve', 'reopen'],
  Project: crud,
  TaskList: crud,
  Task: crud,
  Vehicle: crud,
  Invoice: crud,
  Note: crud,
  Notification: ['read', 'update', 'delete'],
  Sync: crud,
  ApiKey: crud,
  Webhook: crud,
  Search: ['read'],
} as const;

export type Subject = keyof typeof statements;
export type ActionOn<S extends Subject> = (typeof statements)[S][number];
export type Action = ActionOn<Subject>;
/** An (action, subject) pair that exists: `['approve', 'Entry']`, never `['approve', 'Note']`. */
export type Permission = { [S in Subject]: readonly [ActionOn<S>, S] }[Subject];

export const actions = ['read', 'create', 'update', 'delete', 'manage', 'approve', 'reopen'] as const satisfies readonly Action[];
export const subjects = Object.keys(statements) as Subject[];

export const actionEnum = defineEnum('Action', actions);
export const subjectEnum = defineEnum('Subject', subjects as [Subject, ...Subject[]]);

export const roles = ['owner', 'admin', 'manager', 'member'] as const;
export type Role = (typeof roles)[number];

export interface Grant {
  action: Action;
  subject: Subject;
  /** Only the caller's own records of this subject. */
  own: boolean;
}

type GrantSpec<S extends Subject> = ActionOn<S> | `${ActionOn<S>}:own`;
type RoleGrants = { [S in Subject]?: readonly GrantSpec<S>[] };

const adminGrants: RoleGrants = {
  Tenant: ['read', 'update'],
  TenantUser: ['manage'],
  Entry: ['manage', 'approve', 'reopen'],
  Project: ['manage'],
  TaskList: ['manage'],
  Task: ['manage'],
  Vehicle: ['manage'],
  Invoice: ['manage'],
  Note: ['manage'],
  Notification: ['read:own', 'update:own', 'delete:own'],
  Sync: ['manage'],
  ApiKey: ['manage'],
  Webhook: ['manage'],
  Search: ['read'],
};

const matrix: Record<Role, RoleGrants> = {
  owner: adminGrants,
  admin: adminGrants,
  manager: {
    Tenant: ['read'],
    TenantUser: ['read'],
    // Managers approve others' entries, not their own (enforced by the entry service).
    Entry: ['manage', 'approve'],
    Project: ['manage'],
    TaskList: ['manage'],
    Task: ['manage'],
    Vehicle: ['manage'],
    Invoice: ['manage'],
    Note: ['create', 'read', 'update:own', 'delete:own'],
    Notification: ['read:own', 'update:own', 'delete:own'],
    Search: ['read'],
  },
  member: {
    Tenant: ['read'],
    TenantUser: ['read'],
    // Own entries, while draft or rejected; submitting is an update of their own entry.
    Entry: ['create:own', 'read:own', 'update:own', 'delete:own'],
    Project: ['read'],
    TaskList: ['read'],
    // Status of tasks assigned to them.
    Task: ['read', 'update:own'],
    Vehicle: ['read'],
    Invoice: ['create:own', 'read:own'],
    Note: ['create', 'read', 'update:own', 'delete:own'],
    Notification: ['read:own', 'update:own', 'delete:own'],
    Search: ['read'],
  },
};

function parseSpec(subject: Subject, spec: string): Grant {
  const [action, scope] = spec.split(':') as [Action, 'own' | undefined];
  return { action, subject, own: scope === 'own' };
}

const grantsByRole: Record<Role, readonly Grant[]> = Object.fromEntries(
  roles.map((role) => [
    role,
    Object.freeze(
      Object.entries(matrix[role]).flatMap(([subject, specs]) =>
        ((specs ?? []) as readonly string[]).map((spec) => parseSpec(subject as Subject, spec)),
      ),
    ),
  ]),
) as Record<Role, readonly Grant[]>;

/** The grants of a role, as `users/me` shows them. */
export function grantsOf(role: Role): readonly Grant[] {
  return grantsByRole[role];
}

function covers(grant: Grant, action: Action, subject: Subject): boolean {
  if (grant.subject !== subject) return false;
  if (grant.action === action) return true;
  return grant.action === 'manage' && action !== 'approve' && action !== 'reopen';
}

/** The caller may do `action` on `subject` at least for their own records. */
export function canSome(role: Role, action: Action, subject: Subject): boolean {
  return grantsByRole[role].some((grant) => covers(grant, action, subject));
}

/** The caller may do `action` on any record of `subject`, not only their own. */
export function canAny(role: Role, action: Action, subject: Subject): boolean {
  return grantsByRole[role].some((grant) => !grant.own && covers(grant, action, subject));
}
