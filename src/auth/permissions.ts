/**
 * The role-to-permission matrix and the ownership of records, as data. Every
 * access decision (GraphQL scopes, REST, services, search, jobs, the CLI)
 * reads it here, through TenantAccess (tenant-access.ts).
 *
 * A grant is (action, subject) and may reach every record of the subject, only
 * the caller's own (`:own`), or only others' (`:others`: managers approve
 * entries, but not their own). Who owns a record is declared once per subject
 * below (`ownership`). `manage` stands for read, create, update, delete and
 * cancel; `approve` (reviewing submitted entries and requested absences) and
 * `reopen` (taking back what was approved: an approved entry to draft, an
 * approved absence that has begun to cancelled) are separate. A grant may hold only where a tenant
 * setting switches it on (`read if membersSeeRates`).
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
  Client: crud,
  // A client's `notes`: read, or null (members read clients' names, not what those who manage them wrote).
  ClientNotes: ['read'],
  ProjectMember: crud,
  // Rates and amounts (entries, projects, clients, project members, tenant users, reports): read, or null.
  Rate: ['read'],
  // Reports over entries: what of them a caller reads is the Entry scope's (members: their own).
  Report: ['read'],
  // Moving in: imports of other trackers' files.
  Import: crud,
  // The change feed and audit trail: every event of the tenant.
  Event: ['read'],
  // One entry's events (GET entries/{entryId}/history): its owner reads them too.
  EntryHistory: ['read'],
  // Billing (CONTRACT.md section 9): invoices to clients (issue, send, pay and void are updates), the seller's
  // profile, and a client's billing details (address, VAT id...: read, or null, as ClientNotes).
  ClientInvoice: crud,
  // Plans that make a client invoice every period (CONTRACT.md section 11).
  RecurringInvoice: crud,
  BillingProfile: ['read', 'update'],
  ClientBilling: ['read'],
  // What members spent, billed to clients (CONTRACT.md section 11): approved like entries.
  Expense: [...crud, 'approve'],
  // Time off and working time (CONTRACT.md section 10).
  Absence: [...crud, 'approve', 'cancel', 'reopen'],
  AbsenceType: crud,
  Holiday: crud,
  WorkSchedule: crud,
  Vacation: crud,
  // Update: corrections of the overtime account (paid out, forfeited).
  TimeBalance: ['read', 'update'],
  Timesheet: ['read'],
  // Working-time law (CONTRACT.md section 11): a member's days and violations, and the whole team's violations.
  WorkingTime: ['read'],
  TeamWorkingTime: ['read'],
  // A member's own calendar feed URL (users/me/calendar-token).
  CalendarToken: ['create', 'delete'],
} as const;

export type Subject = keyof typeof statements;
export type ActionOn<S extends Subject> = (typeof statements)[S][number];
export type Action = ActionOn<Subject>;
/** An (action, subject) pair that exists: `['approve', 'Entry']`, never `['approve', 'Note']`. */
export type Permission = { [S in Subject]: readonly [ActionOn<S>, S] }[Subject];

export const actions = ['read', 'create', 'update', 'delete', 'manage', 'approve', 'reopen', 'cancel'] as const satisfies readonly Action[];
export const subjects = Object.keys(statements) as Subject[];

export const actionEnum = defineEnum('Action', actions);
export const subjectEnum = defineEnum('Subject', subjects as [Subject, ...Subject[]]);

export const roles = ['owner', 'admin', 'manager', 'member'] as const;
export type Role = (typeof roles)[number];

/** How far a grant reaches: every record of its subject, only the caller's own, or only others'. */
export type GrantReach = 'any' | 'own' | 'others';

export interface Grant {
  action: Action;
  subject: Subject;
  /** Only the caller's own records of this subject (what `users/me` shows). */
  own: boolean;
  reach: GrantReach;
  /** The tenant setting that switches this grant on; always on without one. */
  when?: GrantSwitch;
}

/** Tenant settings that switch grants on (CONTRACT.md section 3: members read rates when `membersSeeRates`). */
export const grantSwitches = ['membersSeeRates'] as const;
export type GrantSwitch = (typeof grantSwitches)[number];

/** The switches a tenant's stored settings turn on (a setting is on only when it is `true`). */
export function switchesOf(settings: unknown): readonly GrantSwitch[] {
  if (typeof settings !== 'object' || settings === null) return [];
  return grantSwitches.filter((name) => (settings as Record<string, unknown>)[name] === true);
}

/** What the refusal of a change to a record says: the verb asked for, the caller's role, and how far their grant reaches. */
interface RefusalOf {
  verb: string;
  role: Role;
  reach: Exclude<GrantReach, 'any'>;
}

/** Who owns a record of a subject: the field holding the owner's tenantUserId, and how a refusal is worded. */
interface Ownership {
  field: string;
  refusal(refused: RefusalOf): string;
}

const pluralOf: Record<Role, string> = { owner: 'Owners', admin: 'Admins', manager: 'Managers', member: 'Members' };

/** The refusal of records members keep and others review (entries, expenses): reviewers not their own, members only their own. */
const reviewedRefusal =
  (noun: string, creating: string) =>
  ({ verb, role, reach }: RefusalOf): string =>
    reach === 'others' ? `${pluralOf[role]} may not ${verb} their own ${noun}` : verb === 'create' ? creating : `You may ${verb} only your own ${noun}`;

/**
 * Who owns the records of each subject that has grants limited to own or to
 * others' records. A subject must be declared here before a role's grant on
 * it may say `:own` or `:others` (the matrix below does not compile
 * otherwise); TenantAccess turns it into Prisma filters, SQL predicates and
 * checks of single records.
 */
export const ownership = {
  Entry: { field: 'tenantUserId', refusal: reviewedRefusal('entries', 'You may create entries only for yourself') },
  Invoice: { field: 'uploadedById', refusal: ({ verb }) => `You may ${verb} only the invoices you uploaded` },
  Note: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only the notes you wrote` },
  Notification: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own notifications` },
  // Tasks are read by everyone; "own" is for changing the status of a task assigned to you.
  Task: { field: 'assigneeId', refusal: () => 'You may change only tasks assigned to you' },
  // A member's own membership: they see their own rates.
  TenantUser: { field: 'id', refusal: ({ verb }) => `You may ${verb} only your own membership` },
  // The history of an entry is its owner's (the entry's tenantUserId).
  EntryHistory: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} the history of your own entries only` },
  Expense: { field: 'tenantUserId', refusal: reviewedRefusal('expenses', 'You may record expenses only for yourself') },
  Absence: {
    field: 'tenantUserId',
    refusal: ({ verb }) => (verb === 'create' ? 'You may request absences only for yourself' : `You may ${verb} only your own absences`),
  },
  WorkSchedule: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own work schedule` },
  Vacation: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own vacation days` },
  TimeBalance: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own time balance` },
  Timesheet: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own timesheets` },
  WorkingTime: { field: 'tenantUserId', refusal: ({ verb }) => `You may ${verb} only your own working time` },
} as const satisfies { [S in Subject]?: Ownership };

export type OwnedSubject = keyof typeof ownership;

/** The field that names the owner of a record of `S`. */
export type OwnerField<S extends OwnedSubject> = (typeof ownership)[S]['field'];

/**
 * The field of a subject's records that names their tenant, where it is not
 * `tenantId`: a tenant is its own record. TenantAccess builds every tenant
 * condition (a Prisma `where`, an SQL predicate) from it.
 */
export const tenantFields = { Tenant: 'id' } as const satisfies { [S in Subject]?: string };

/** The field naming the tenant of a record of `S`. */
export type TenantField<S extends Subject> = S extends keyof typeof tenantFields ? (typeof tenantFields)[S] : 'tenantId';

/** The field naming the tenant of a record of `subject`. */
export const tenantFieldOf = <S extends Subject>(subject: S): TenantField<S> =>
  (Object.hasOwn(tenantFields, subject) ? tenantFields[subject as keyof typeof tenantFields] : 'tenantId') as TenantField<S>;

type GrantSpec<S extends Subject> = ActionOn<S> | `${ActionOn<S>} if ${GrantSwitch}` | (S extends OwnedSubject ? `${ActionOn<S>}:${'own' | 'others'}` : never);
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
  Client: ['manage'],
  ClientNotes: ['read'],
  ProjectMember: ['manage'],
  Rate: ['read'],
  Report: ['read'],
  Import: ['manage'],
  Event: ['read'],
  EntryHistory: ['read'],
  ClientInvoice: ['manage'],
  RecurringInvoice: ['manage'],
  BillingProfile: ['read', 'update'],
  ClientBilling: ['read'],
  Expense: ['manage', 'approve'],
  // Only owners and admins take back an approved absence that has begun.
  Absence: ['manage', 'approve', 'reopen'],
  AbsenceType: ['manage'],
  Holiday: ['manage'],
  WorkSchedule: ['manage'],
  Vacation: ['manage'],
  // Correcting a balance is an admin's, as correcting vacation days is.
  TimeBalance: ['read', 'update'],
  Timesheet: ['read'],
  WorkingTime: ['read'],
  TeamWorkingTime: ['read'],
  // Everyone's own feed (the service only ever touches the caller's); an API key has none (it is no member).
  CalendarToken: ['create', 'delete'],
};

const matrix: Record<Role, RoleGrants> = {
  owner: adminGrants,
  admin: adminGrants,
  manager: {
    Tenant: ['read'],
    TenantUser: ['read'],
    // Managers approve others' entries, not their own.
    Entry: ['manage', 'approve:others'],
    Project: ['manage'],
    TaskList: ['manage'],
    Task: ['manage'],
    Vehicle: ['manage'],
    Invoice: ['manage'],
    Note: ['create', 'read', 'update:own', 'delete:own'],
    Notification: ['read:own', 'update:own', 'delete:own'],
    Search: ['read'],
    Client: ['manage'],
    ClientNotes: ['read'],
    ProjectMember: ['manage'],
    Rate: ['read'],
    Report: ['read'],
    // Their own entries' history; the feed of the whole tenant is for owners and admins (CONTRACT.md section 3).
    EntryHistory: ['read:own'],
    ClientInvoice: ['read'],
    RecurringInvoice: ['read'],
    BillingProfile: ['read'],
    ClientBilling: ['read'],
    // Managers approve others' expenses, not their own (as entries).
    Expense: ['manage', 'approve:others'],
    // Managers approve others' absences, not their own.
    Absence: ['manage', 'approve:others'],
    AbsenceType: ['read'],
    Holiday: ['read'],
    WorkSchedule: ['read'],
    Vacation: ['read'],
    TimeBalance: ['read'],
    Timesheet: ['read'],
    WorkingTime: ['read'],
    TeamWorkingTime: ['read'],
    CalendarToken: ['create', 'delete'],
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
    // Names only: a client's notes are for those who manage clients (ClientNotes), its rate is a Rate.
    Client: ['read'],
    ProjectMember: ['read'],
    // Rates and amounts only where the tenant lets members see them; null otherwise.
    Rate: ['read if membersSeeRates'],
    // Their own entries only: the report reads entries through the Entry scope.
    Report: ['read'],
    EntryHistory: ['read:own'],
    // Their own expenses, while draft or rejected; submitting is an update of their own expense.
    Expense: ['create:own', 'read:own', 'update:own', 'delete:own'],
    // Their own absences; colleagues' approved ones they see as busy days, without the type (absence.service.ts).
    Absence: ['create:own', 'read:own', 'update:own', 'cancel:own'],
    AbsenceType: ['read'],
    Holiday: ['read'],
    WorkSchedule: ['read:own'],
    Vacation: ['read:own'],
    TimeBalance: ['read:own'],
    Timesheet: ['read:own'],
    // Their own days; the team's violations are for managers and admins.
    WorkingTime: ['read:own'],
    CalendarToken: ['create', 'delete'],
  },
};

function parseSpec(subject: Subject, spec: string): Grant {
  const [grant, when] = spec.split(' if ') as [string, GrantSwitch | undefined];
  const [action, limit] = grant.split(':') as [Action, 'own' | 'others' | undefined];
  const reach = limit ?? 'any';
  return { action, subject, own: reach === 'own', reach, ...(when ? { when } : {}) };
}

const grantsByRole: Record<Role, readonly Grant[]> = Object.fromEntries(
  roles.map((role) => [
    role,
    Object.freeze(
      Object.entries(matrix[role]).flatMap(([subject, specs]) => ((specs ?? []) as readonly string[]).map((spec) => parseSpec(subject as Subject, spec))),
    ),
  ]),
) as Record<Role, readonly Grant[]>;

const switchKey = (switches: readonly GrantSwitch[]): string => [...switches].sort().join(',');

/** The grants of a role in a tenant whose settings turn `switches` on, as `users/me` shows them. */
export function grantsOf(role: Role, switches: readonly GrantSwitch[] = []): readonly Grant[] {
  const all = grantsByRole[role];
  return all.some((grant) => grant.when !== undefined) ? all.filter((grant) => grant.when === undefined || switches.includes(grant.when)) : all;
}

function covers(grant: Grant, action: Action, subject: Subject): boolean {
  if (grant.subject !== subject) return false;
  if (grant.action === action) return true;
  return grant.action === 'manage' && action !== 'approve' && action !== 'reopen';
}

/** How far a role's grants for (action, subject) reach, or `none`: computed once per role, action and subject. */
export type Reach = GrantReach | 'none';

function reachOfGrants(grants: readonly Grant[], action: Action, subject: Subject): Reach {
  const reaches = new Set(grants.filter((grant) => covers(grant, action, subject)).map((grant) => grant.reach));
  if (reaches.has('any') || (reaches.has('own') && reaches.has('others'))) return 'any';
  if (reaches.has('own')) return 'own';
  if (reaches.has('others')) return 'others';
  return 'none';
}

/** The reach of each role, subject and action under one combination of switches, looked up without building a key. */
type ReachTable = ReadonlyMap<Role, ReadonlyMap<Subject, ReadonlyMap<Action, Reach>>>;

/** The reach tables by combination of switches: each built once, when a tenant first shows its combination. */
const reachTables = new Map<string, ReachTable>();

function reachTableFor(switches: readonly GrantSwitch[]): ReachTable {
  const key = switchKey(switches);
  let table = reachTables.get(key);
  if (!table) {
    table = new Map(
      roles.map((role) => {
        const grants = grantsOf(role, switches);
        return [role, new Map(subjects.map((subject) => [subject, new Map(actions.map((action) => [action, reachOfGrants(grants, action, subject)]))]))];
      }),
    );
    reachTables.set(key, table);
  }
  return table;
}

/**
 * How far `role` reaches under `switches`, for any action and subject. The table is found once, here: a tenant
 * access asks through this for every rate field of a report (thousands of times a request), and finding it per
 * question (sorting and joining the switches into its key) was a fifth of rendering a large report.
 */
export function reachesOf(role: Role, switches: readonly GrantSwitch[] = []): (action: Action, subject: Subject) => Reach {
  const bySubject = reachTableFor(switches).get(role);
  return (action, subject) => bySubject?.get(subject)?.get(action) ?? 'none';
}

/** How far `role` may do `action` on `subject`: every record, only their own, only others', or not at all. */
export function reachOf(role: Role, action: Action, subject: Subject, switches: readonly GrantSwitch[] = []): Reach {
  return reachesOf(role, switches)(action, subject);
}

/** The caller may do `action` on `subject` at least for some records. */
export function canSome(role: Role, action: Action, subject: Subject, switches: readonly GrantSwitch[] = []): boolean {
  return reachOf(role, action, subject, switches) !== 'none';
}

/** The caller may do `action` on any record of `subject`. */
export function canAny(role: Role, action: Action, subject: Subject, switches: readonly GrantSwitch[] = []): boolean {
  return reachOf(role, action, subject, switches) === 'any';
}

/** The refusal of `verb` on a record the caller's grant does not reach. */
export function ownershipRefusal(subject: OwnedSubject, refused: RefusalOf): string {
  return ownership[subject].refusal(refused);
}
