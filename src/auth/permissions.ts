/**
 * The role-to-permission matrix of CONTRACT.md section 3, as data. Every
 * check in the service (GraphQL scopes, REST, jobs, the CLI) reads it here.
 *
 * A grant is (action, subject) and may be limited to the caller's own
 * records (`own`): what "own" means is up to the subject's service (the
 * author of a note, the owner of an entry, the assignee of a task...).
 * `manage` stands for read, create, update and delete; `approve` is separate.
 */

export const actions = ['read', 'create', 'update', 'delete', 'manage', 'approve'] as const;
export type Action = (typeof actions)[number];

export const subjects = [
  'Tenant',
  'TenantUser',
  'Entry',
  'Project',
  'TaskList',
  'Task',
  'Vehicle',
  'Invoice',
  'Note',
  'Notification',
  'Sync',
  'ApiKey',
  'Webhook',
  'Search',
] as const;
export type Subject = (typeof subjects)[number];

export const roles = ['owner', 'admin', 'manager', 'member'] as const;
export type Role = (typeof roles)[number];

export interface Grant {
  action: Action;
  subject: Subject;
  /** Only the caller's own records of this subject. */
  own: boolean;
}

type GrantSpec = Action | `${Action}:own`;

const adminGrants: Partial<Record<Subject, GrantSpec[]>> = {
  Tenant: ['read', 'update'],
  TenantUser: ['manage'],
  Entry: ['manage', 'approve'],
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

const matrix: Record<Role, Partial<Record<Subject, GrantSpec[]>>> = {
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

function parseSpec(subject: Subject, spec: GrantSpec): Grant {
  const [action, scope] = spec.split(':') as [Action, 'own' | undefined];
  return { action, subject, own: scope === 'own' };
}

const grantsByRole: Record<Role, readonly Grant[]> = Object.fromEntries(
  roles.map((role) => [
    role,
    Object.freeze(
      Object.entries(matrix[role]).flatMap(([subject, specs]) =>
        (specs ?? []).map((spec) => parseSpec(subject as Subject, spec)),
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
  return grant.action === 'manage' && action !== 'approve';
}

/** The caller may do `action` on `subject` at least for their own records. */
export function canSome(role: Role, action: Action, subject: Subject): boolean {
  return grantsByRole[role].some((grant) => covers(grant, action, subject));
}

/** The caller may do `action` on any record of `subject`, not only their own. */
export function canAny(role: Role, action: Action, subject: Subject): boolean {
  return grantsByRole[role].some((grant) => !grant.own && covers(grant, action, subject));
}
