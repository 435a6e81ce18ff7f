/**
 * Who and what an import's rows name, as the tenant's ids: people by email,
 * else by name (Harvest), invited when unknown; clients, projects and tasks by
 * name, created when missing; and the money model's rates of each (member,
 * project) pair. Written in the batch's transaction; what a batch resolves is
 * remembered for the next batches of the same run (`ImportReferences`).
 */
import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { recordEvent } from '../../../events/outbox.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { addMember } from '../../platform/user/user.service.js';
import { rateKey, ratesForMany } from '../entry/entry.rates.js';
import type { CopiedRates } from '../entry/entry.values.js';
import type { Clock } from '../../../lib/clock.js';
import type { ImportedEntry } from './import.formats.js';

/** What an import creates besides entries, counted on the import. */
export interface CreatedCounts {
  clients: number;
  projects: number;
  tasks: number;
  members: number;
}

/** Names already resolved to ids during this run. */
export interface ImportReferences {
  members: Map<string, string>;
  clients: Map<string, string>;
  projects: Map<string, { id: string; billable: boolean }>;
  taskLists: Map<string, string>;
  tasks: Map<string, string>;
  rates: Map<string, CopiedRates>;
}

export const emptyReferences = (): ImportReferences => ({
  members: new Map(),
  clients: new Map(),
  projects: new Map(),
  taskLists: new Map(),
  tasks: new Map(),
  rates: new Map(),
});

/** The longest name of a person, client, project or task (their inputs' limit): a longer one in a file is cut. */
const nameLimit = 200;
const emailShape = z.email();
/** The list an imported task goes into, one per project (and one for tasks without a project). */
const importedTaskList = 'Imported';

/** A person's placeholder address for files without emails (CONTRACT.md section 8): `<name-slug>@import.invalid`. */
export function placeholderEmail(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug || 'person'}@import.invalid`;
}

const personKey = (entry: ImportedEntry): string | null =>
  entry.email !== null ? `email:${entry.email}` : entry.userName !== null ? `name:${entry.userName.toLowerCase()}` : null;
const projectKey = (clientId: string | null, name: string): string => `${clientId ?? ''}\u0000${name}`;
const taskKey = (projectId: string | null, title: string): string => `${projectId ?? ''}\u0000${title}`;
const cut = (value: string, length: number): string => value.slice(0, length);
/** What an entry of a row is attached to, and the rates the money model gives it. */
export interface ResolvedEntry {
  tenantUserId: string;
  project: { id: string; billable: boolean } | null;
  taskId: string | null;
  rates: CopiedRates;
}

export function createReferenceResolver(
  tx: Tx,
  context: { access: TenantAccess; settings: Pick<TenantSettings, 'currency' | 'defaultHourlyRate'>; clock: Clock },
  references: ImportReferences,
) {
  const { access } = context;
  const created: CreatedCounts = { clients: 0, projects: 0, tasks: 0, members: 0 };

  /** People by email, else by name (Harvest); unknown ones are invited. A key that cannot be a member maps to an error. */
  async function resolveMembers(entries: readonly ImportedEntry[]): Promise<Map<string, string | Error>> {
    const result = new Map<string, string | Error>();
    const wanted = new Map<string, ImportedEntry>();
    for (const entry of entries) {
      const key = personKey(entry);
      if (key === null || result.has(key) || wanted.has(key)) continue;
      const known = references.members.get(key);
      if (known !== undefined) result.set(key, known);
      else wanted.set(key, entry);
    }
    if (wanted.size === 0) return result;
    const emails = new Map<string, string>();
    const names = new Map<string, string>();
    for (const [key, entry] of wanted) {
      if (entry.email !== null) {
        if (!emailShape.safeParse(entry.email).success) result.set(key, new Error(`"${entry.email}" is not an email address`));
        else emails.set(entry.email, key);
      } else if (entry.userName !== null) {
        names.set(entry.userName.toLowerCase(), key);
        emails.set(placeholderEmail(entry.userName), key);
      }
    }
    const found = await tx.tenantUser.findMany({
      where: {
        OR: [
          { email: { in: [...emails.keys()] } },
          ...(names.size > 0 ? [{ name: { in: [...wanted.values()].flatMap((entry) => entry.userName ?? []), mode: 'insensitive' as const } }] : []),
        ],
        ...access.scope('read', 'TenantUser'),
      },
      select: { id: true, email: true, name: true, status: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    // A name matches an active member before an invited or deactivated one; the oldest first.
    const byStatus = { active: 0, invited: 1, deactivated: 2 } as const;
    const idByEmail = new Map(found.map((member) => [member.email, member.id] as const));
    for (const member of [...found].sort((a, b) => byStatus[a.status] - byStatus[b.status])) {
      const keys = [emails.get(member.email), member.name ? names.get(member.name.toLowerCase()) : undefined];
      for (const key of keys) if (key !== undefined && !result.has(key)) result.set(key, member.id);
    }
    for (const [key, entry] of wanted) {
      if (result.has(key)) continue;
      // Two names with one placeholder ("Zoë Ng", "Zoe Ng") are one person: the first invitation serves both.
      const email = entry.email ?? placeholderEmail(entry.userName as string);
      let id = idByEmail.get(email);
      if (id === undefined) {
        const name = entry.userName ? { name: cut(entry.userName, nameLimit) } : {};
        id = (await addMember(tx, access, { email, role: 'member', ...name }, context.clock.now())).id;
        created.members += 1;
        idByEmail.set(email, id);
      }
      result.set(key, id);
    }
    for (const [key, value] of result) if (typeof value === 'string') references.members.set(key, value);
    return result;
  }

  async function resolveClients(names: ReadonlySet<string>): Promise<void> {
    const missing = [...names].filter((name) => !references.clients.has(name));
    if (missing.length === 0) return;
    for (const client of await tx.client.findMany({ where: { name: { in: missing }, ...access.scope('read', 'Client') }, select: { id: true, name: true } })) {
      references.clients.set(client.name, client.id);
    }
    for (const name of missing) {
      if (references.clients.has(name)) continue;
      const client = await tx.client.create({ data: access.stamp({ name, currency: context.settings.currency }) });
      await recordEvent(tx, access, { type: 'client.created', subjectId: client.id, data: client });
      created.clients += 1;
      references.clients.set(name, client.id);
    }
  }

  /** Projects by name and client: a file's project without a client matches one of that name with or without a client. */
  async function resolveProjects(wanted: ReadonlyMap<string, { name: string; clientId: string | null }>): Promise<void> {
    const missing = [...wanted].filter(([key]) => !references.projects.has(key));
    if (missing.length === 0) return;
    const candidates = await tx.project.findMany({
      where: { name: { in: [...new Set(missing.map(([, project]) => project.name))] }, ...access.scope('read', 'Project') },
      select: { id: true, name: true, clientId: true, billable: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    for (const [key, { name, clientId }] of missing) {
      const named = candidates.filter((project) => project.name === name);
      const match = named.find((project) => project.clientId === clientId) ?? (clientId === null ? named[0] : undefined);
      if (match) {
        references.projects.set(key, { id: match.id, billable: match.billable });
        continue;
      }
      const project = await tx.project.create({ data: access.stamp({ name, clientId }) });
      await recordEvent(tx, access, { type: 'project.created', subjectId: project.id, data: project });
      created.projects += 1;
      references.projects.set(key, { id: project.id, billable: project.billable });
    }
  }

  /** The project's list of imported tasks, created on first use. */
  async function importList(projectId: string | null): Promise<string> {
    const key = projectId ?? '';
    const known = references.taskLists.get(key);
    if (known !== undefined) return known;
    const existing = await tx.taskList.findFirst({
      where: { projectId, name: importedTaskList, ...access.scope('read', 'TaskList') },
      select: { id: true },
      orderBy: { createdAt: 'asc' },
    });
    const list =
      existing ?? (await tx.taskList.create({ data: access.stamp({ projectId, name: importedTaskList, description: 'Tasks named by imported entries' }) }));
    if (!existing) await recordEvent(tx, access, { type: 'task_list.created', subjectId: list.id, data: list });
    references.taskLists.set(key, list.id);
    return list.id;
  }

  /** Tasks by title within their project's lists (any list of the project), created in its "Imported" list when missing. */
  async function resolveTasks(wanted: ReadonlyMap<string, { title: string; projectId: string | null }>): Promise<void> {
    const missing = [...wanted].filter(([key]) => !references.tasks.has(key));
    if (missing.length === 0) return;
    const candidates = await tx.task.findMany({
      where: { title: { in: [...new Set(missing.map(([, task]) => task.title))] }, ...access.scope('read', 'Task') },
      select: { id: true, title: true, taskList: { select: { projectId: true } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    for (const [key, { title, projectId }] of missing) {
      const match = candidates.find((task) => task.title === title && task.taskList.projectId === projectId);
      if (match) {
        references.tasks.set(key, match.id);
        continue;
      }
      const task = await tx.task.create({ data: access.stamp({ taskListId: await importList(projectId), title }) });
      await recordEvent(tx, access, { type: 'task.created', subjectId: task.id, data: task });
      created.tasks += 1;
      references.tasks.set(key, task.id);
    }
  }

  /** The money model's rates of every (member, project) pair of the batch not met before, in one statement. */
  async function resolveRates(pairs: readonly { tenantUserId: string; projectId: string | null }[]): Promise<void> {
    const missing = pairs.filter((pair) => !references.rates.has(rateKey(pair.tenantUserId, pair.projectId)));
    for (const [key, rates] of await ratesForMany(tx, access, missing, context.settings)) references.rates.set(key, rates);
  }

  return {
    created,

    /**
     * Resolves each entry's person, project, task and rates, creating what
     * is missing; an entry whose person cannot be a member is an Error (its
     * row fails).
     */
    async resolve(entries: readonly ImportedEntry[]): Promise<(ResolvedEntry | Error)[]> {
      const members = await resolveMembers(entries);
      const usable = entries.filter((entry) => typeof members.get(personKey(entry) ?? '') === 'string');
      await resolveClients(new Set(usable.flatMap((entry) => (entry.client ? [cut(entry.client, nameLimit)] : []))));
      const projectOf = (entry: ImportedEntry) => {
        if (!entry.project) return null;
        const clientId = entry.client ? (references.clients.get(cut(entry.client, nameLimit)) ?? null) : null;
        const name = cut(entry.project, nameLimit);
        return { key: projectKey(clientId, name), name, clientId };
      };
      const projects = new Map<string, { name: string; clientId: string | null }>();
      for (const entry of usable) {
        const project = projectOf(entry);
        if (project) projects.set(project.key, project);
      }
      await resolveProjects(projects);
      const projectIdOf = (entry: ImportedEntry) => {
        const project = projectOf(entry);
        return project ? (references.projects.get(project.key) ?? null) : null;
      };
      const tasks = new Map<string, { title: string; projectId: string | null }>();
      for (const entry of usable) {
        if (!entry.task) continue;
        const projectId = projectIdOf(entry)?.id ?? null;
        const title = cut(entry.task, nameLimit);
        tasks.set(taskKey(projectId, title), { title, projectId });
      }
      await resolveTasks(tasks);

      const owners = usable.map((entry) => ({ tenantUserId: members.get(personKey(entry) ?? '') as string, projectId: projectIdOf(entry)?.id ?? null }));
      await resolveRates([...new Map(owners.map((pair) => [rateKey(pair.tenantUserId, pair.projectId), pair] as const)).values()]);
      return entries.map((entry) => {
        const member = members.get(personKey(entry) ?? '');
        if (typeof member !== 'string') return member ?? new Error('names no person: it needs an email or a name');
        const project = projectIdOf(entry);
        const projectId = project?.id ?? null;
        return {
          tenantUserId: member,
          project,
          taskId: entry.task ? (references.tasks.get(taskKey(projectId, cut(entry.task, nameLimit))) ?? null) : null,
          rates: references.rates.get(rateKey(member, projectId)) as CopiedRates,
        };
      });
    },
  };
}
