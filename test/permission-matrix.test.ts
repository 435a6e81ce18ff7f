/**
 * Walks the permission matrix (src/auth/permissions.ts) against the running
 * API: each role, and an API key, over every REST route that declares a
 * permission, and over the same operation in GraphQL. What each caller may
 * do is read from the route's declared permission and the matrix, never
 * written here; a route without a walk below fails the coverage test, so a
 * new resource cannot land without its matrix tests.
 */
import { randomBytes } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachOf, type Permission, type Role } from '../src/auth/permissions.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/compile.js';
import { routeTable } from '../src/routes.js';
import { schema } from '../src/schema.js';
import { eventually } from './helpers/eventually.js';
import type { ApiClient, Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
/** A member whose records the callers act on when they act on someone else's. */
let other: { id: string };

/** Who walks the routes: a role, an API key. */
interface Caller {
  name: string;
  role: Role;
  api: ApiClient;
  /** Their member record; null for the API key. */
  tenantUserId: string | null;
}
const callers: Caller[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  // Webhook walks point at a closed loopback port: nothing is listening there, nothing leaves the machine.
  server = await startTestServer({ env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const seed = seeder(server, provider);
  const tenantStep = seed.tenant();
  tenant = await tenantStep;
  // Reviews are walked too: entries wait for approval once submitted.
  await tenant.api.patch(`/tenants/${tenant.id}`, { settings: { approvalRequired: true } });
  callers.push({ name: 'api key', role: 'admin', api: tenant.api, tenantUserId: null });
  for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
    const member = await tenantStep.member(role);
    callers.push({ name: role, role, api: member.api, tenantUserId: member.id });
  }
  other = await tenantStep.member('member');
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const t = () => tenant.id;

async function created(response: Promise<{ status: number; body: unknown; text: string }>, what: string): Promise<string> {
  const answer = await response;
  if (answer.status !== 201) throw new Error(`could not create ${what}: ${answer.status} ${answer.text}`);
  return (answer.body as { id: string }).id;
}

type EntryState = 'draft' | 'submitted' | 'approved' | 'running';

/** Records an operation works on, made with the tenant's key, so that no caller owns them. */
const targets = {
  member: () => created(tenant.api.post(`/tenants/${t()}/users`, { email: uniqueEmail('target') }), 'a member'),
  note: () => created(tenant.api.post(`/tenants/${t()}/notes`, { content: 'not yours' }), 'a note'),
  invoice: () => created(tenant.api.post(`/tenants/${t()}/invoices`, { number: 'not yours' }), 'an invoice'),
  /** A mailbox sync on a closed loopback port: a run fails at once, touching nothing. */
  sync: () => created(tenant.api.post(`/tenants/${t()}/syncs`, { name: 'Walk', host: '127.0.0.1', port: 9, secure: false, username: 'walk', password: 'walk' }), 'a sync'),
  apiKey: () => created(tenant.api.post(`/tenants/${t()}/api-keys`, { name: 'target' }), 'a key'),
  project: () => created(tenant.api.post(`/tenants/${t()}/projects`, { name: 'Target project' }), 'a project'),
  vehicle: () => created(tenant.api.post(`/tenants/${t()}/vehicles`, { name: 'Van', licensePlate: uniqueEmail('p').slice(0, 12) }), 'a vehicle'),
  taskList: () => created(tenant.api.post(`/tenants/${t()}/task-lists`, { name: 'Target list' }), 'a task list'),
  /** A task, assigned to `assignee` if given. */
  task: async (assignee?: string | null) => {
    const list = await targets.taskList();
    const id = await created(tenant.api.post(`/tenants/${t()}/task-lists/${list}/tasks`, { title: 'Target', ...(assignee ? { assigneeId: assignee } : {}) }), 'a task');
    return { list, id };
  },
  /** A webhook to a closed port (create walks make their own; a shared one serves reads, tests and redeliveries). */
  webhook: () => created(tenant.api.post(`/tenants/${t()}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 'a webhook'),
  sharedWebhook: (() => {
    let shared: Promise<{ id: string; deliveryId: string }> | undefined;
    return () =>
      (shared ??= (async () => {
        const id = await targets.webhook();
        const test = await tenant.api.post<{ id: string }>(`/tenants/${t()}/webhooks/${id}/test`);
        return { id, deliveryId: test.body.id };
      })());
  })(),
  /** A notification of the other member. */
  notification: async () =>
    (await server.app.db.notification.create({ data: { tenantId: t(), tenantUserId: other.id, type: 'task.assigned', title: 'Not yours' } })).id,
  /** An entry of `owner` (default: the other member), in `state`. */
  entry: async (state: EntryState = 'draft', owner: string = other.id) => {
    const day = 1 + Math.floor(Math.random() * 27);
    const startedAt = state === 'running' ? new Date(Date.now() - 3_600_000).toISOString() : `2026-02-${String(day).padStart(2, '0')}T0${Math.floor(Math.random() * 9)}:00:00Z`;
    const id = await created(
      tenant.api.post(`/tenants/${t()}/entries`, {
        tenantUserId: owner,
        startedAt,
        ...(state === 'running' ? {} : { endedAt: startedAt.replace(/T0(\d)/, (_all, hour: string) => `T1${hour}`) }),
      }),
      'an entry',
    );
    if (state === 'submitted' || state === 'approved') await tenant.api.post(`/tenants/${t()}/entries/${id}/submit`);
    if (state === 'approved') await tenant.api.post(`/tenants/${t()}/entries/${id}/approve`);
    return id;
  },
};

/** A tiny PNG of a random colour: a new file each time (the same file twice is a 409), and OCR finds no text in it at once. */
function pngFile(): Blob {
  const canvas = createCanvas(16, 16);
  const context = canvas.getContext('2d');
  context.fillStyle = `#${randomBytes(3).toString('hex')}`;
  context.fillRect(0, 0, 16, 16);
  return new Blob([new Uint8Array(canvas.toBuffer('image/png'))], { type: 'image/png' });
}

/** Uploads a new file as `api`'s caller. */
function uploadInvoice(api: ApiClient) {
  const form = new FormData();
  form.append('file', pngFile(), 'walk.png');
  return api.request<{ id: string }>('POST', `/tenants/${t()}/invoices/upload`, form);
}

/** An uploaded invoice of `api`'s caller whose OCR has finished (noise fails at once), so it may run again. */
async function uploadedInvoice(api: ApiClient): Promise<string> {
  const answer = await uploadInvoice(api);
  if (answer.status !== 201) throw new Error(`could not upload an invoice: ${answer.status} ${answer.text}`);
  await eventually(async () => {
    const invoice = await tenant.api.get<{ ocrStatus: string }>(`/tenants/${t()}/invoices/${answer.body.id}`);
    expect(['done', 'failed']).toContain(invoice.body.ocrStatus);
  });
  return answer.body.id;
}

/** The caller's own record: made by them (the key makes it for the other member, as its own can only be). */
const own = {
  note: (caller: Caller) => created(caller.api.post(`/tenants/${t()}/notes`, { content: 'mine' }), 'an own note'),
  invoice: (caller: Caller) => created(caller.api.post(`/tenants/${t()}/invoices`, { number: 'mine' }), 'an own invoice'),
  entry: (caller: Caller, state: EntryState = 'draft') => targets.entry(state, caller.tenantUserId ?? other.id),
};

type Outcome = 'allowed' | 'forbidden' | `unexpected ${string}`;

/**
 * 403 is a refusal. So is 404 where the walk says refused records are
 * hidden: another member's entry is not found, rather than forbidden.
 */
function restOutcome(status: number, hidden: boolean): Outcome {
  if (status < 300) return 'allowed';
  if (status === 403 || (hidden && status === 404)) return 'forbidden';
  return `unexpected ${status}`;
}

async function graphqlOutcome(api: ApiClient, query: string, variables: Json = {}, hidden = false): Promise<Outcome> {
  const response = await api.graphql(query, { tenantId: tenant.id, ...variables });
  const code = response.body.errors?.[0]?.extensions?.code;
  if (code === undefined) return 'allowed';
  return code === 'FORBIDDEN' || (hidden && code === 'NOT_FOUND') ? 'forbidden' : `unexpected ${code}`;
}

/**
 * One walk of an operation, over REST and GraphQL. `own`: on a record the
 * caller made (then grants limited to their own records count), or on one
 * they did not (then only unrestricted grants count). `hidden`: a refused
 * caller cannot see the record at all (404).
 */
interface Walk {
  own?: boolean;
  hidden?: boolean;
  rest(caller: Caller): Promise<number>;
  /** The same operation in GraphQL; none for REST-only rows (uploads, downloads). */
  graphql?(caller: Caller): Promise<Outcome>;
}

interface Walks {
  /** The pair the route must declare, from the role table this service promises. */
  permission: Permission;
  walks: Walk[];
}
const on = (permission: Permission, walks: Walk[]): Walks => ({ permission, walks });

const gql = (query: string, variables: Json = {}, hidden = false) => (caller: Caller) => graphqlOutcome(caller.api, query, variables, hidden);

/** A walk on a record of someone else's and on one of the caller's own. */
const eachOwner = (walk: (own: boolean) => Walk): Walk[] => [walk(false), walk(true)];

/** Every REST route that declares a permission, by operationId. */
const walks: Record<string, Walks> = {
  tenantControllerFindOne: on(['read', 'Tenant'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}`)).status,
      graphql: gql('query ($tenantId: ID!) { tenant(tenantId: $tenantId) { id } }'),
    },
  ]),
  tenantControllerUpdate: on(['update', 'Tenant'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}`, { name: 'Renamed' })).status,
      graphql: gql('mutation ($tenantId: ID!) { updateTenant(tenantId: $tenantId, input: { name: "Renamed" }) { id } }'),
    },
  ]),
  userControllerFindAll: on(['read', 'TenantUser'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/users`)).status,
      graphql: gql('query ($tenantId: ID!) { users(tenantId: $tenantId) { id } }'),
    },
  ]),
  userControllerFindMe: on(['read', 'Tenant'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/users/me`)).status,
      graphql: gql('query ($tenantId: ID!) { me(tenantId: $tenantId) { role } }'),
    },
  ]),
  userControllerFindOne: on(['read', 'TenantUser'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/users/${await targets.member()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { user(tenantId: $tenantId, id: $id) { id } }', { id: await targets.member() })(caller),
    },
  ]),
  userControllerCreate: on(['create', 'TenantUser'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/users`, { email: uniqueEmail('new') })).status,
      graphql: (caller) =>
        gql('mutation ($tenantId: ID!, $email: String!) { inviteUser(tenantId: $tenantId, input: { email: $email }) { id } }', {
          email: uniqueEmail('new'),
        })(caller),
    },
  ]),
  userControllerUpdate: on(['update', 'TenantUser'], [
    {
      own: false,
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/users/${await targets.member()}`, { name: 'Changed' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateUser(tenantId: $tenantId, id: $id, input: { name: "Changed" }) { id } }', {
          id: await targets.member(),
        })(caller),
    },
  ]),
  userControllerRemove: on(['delete', 'TenantUser'], [
    {
      own: false,
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/users/${await targets.member()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { removeUser(tenantId: $tenantId, id: $id) { id } }', { id: await targets.member() })(caller),
    },
  ]),
  noteControllerFindAll: on(['read', 'Note'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/notes`)).status,
      graphql: gql('query ($tenantId: ID!) { notes(tenantId: $tenantId) { id } }'),
    },
  ]),
  noteControllerFindOne: on(['read', 'Note'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/notes/${await targets.note()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { note(tenantId: $tenantId, id: $id) { id } }', { id: await targets.note() })(caller),
    },
  ]),
  noteControllerCreate: on(['create', 'Note'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/notes`, { content: 'new' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createNote(tenantId: $tenantId, input: { content: "new" }) { id } }'),
    },
  ]),
  noteControllerUpdate: on(['update', 'Note'], eachOwner((mine) => ({
    own: mine,
    rest: async (caller) => (await caller.api.patch(`/tenants/${t()}/notes/${mine ? await own.note(caller) : await targets.note()}`, { content: 'edited' })).status,
    graphql: async (caller) =>
      gql('mutation ($tenantId: ID!, $id: ID!) { updateNote(tenantId: $tenantId, id: $id, input: { content: "edited" }) { id } }', {
        id: mine ? await own.note(caller) : await targets.note(),
      })(caller),
  }))),
  noteControllerRemove: on(['delete', 'Note'], eachOwner((mine) => ({
    own: mine,
    rest: async (caller) => (await caller.api.delete(`/tenants/${t()}/notes/${mine ? await own.note(caller) : await targets.note()}`)).status,
    graphql: async (caller) =>
      gql('mutation ($tenantId: ID!, $id: ID!) { deleteNote(tenantId: $tenantId, id: $id) { id } }', {
        id: mine ? await own.note(caller) : await targets.note(),
      })(caller),
  }))),
  invoiceControllerFindAll: on(['read', 'Invoice'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/invoices`)).status,
      graphql: gql('query ($tenantId: ID!) { invoices(tenantId: $tenantId) { id } }'),
    },
  ]),
  invoiceControllerFindOne: on(['read', 'Invoice'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => (await caller.api.get(`/tenants/${t()}/invoices/${mine ? await own.invoice(caller) : await targets.invoice()}`)).status,
    graphql: async (caller) =>
      gql('query ($tenantId: ID!, $id: ID!) { invoice(tenantId: $tenantId, id: $id) { id } }', { id: mine ? await own.invoice(caller) : await targets.invoice() }, true)(caller),
  }))),
  invoiceControllerCreate: on(['create', 'Invoice'], [
    {
      own: true,
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/invoices`, { number: 'walk' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createInvoice(tenantId: $tenantId, input: { number: "walk" }) { id } }'),
    },
  ]),
  invoiceControllerUpload: on(['create', 'Invoice'], [{ own: true, rest: async ({ api }) => (await uploadInvoice(api)).status }]),
  invoiceControllerDownload: on(['read', 'Invoice'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => (await caller.api.get(`/tenants/${t()}/invoices/${await uploadedInvoice(mine ? caller.api : tenant.api)}/file`)).status,
  }))),
  invoiceControllerOcr: on(['update', 'Invoice'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/invoices/${await uploadedInvoice(tenant.api)}/ocr`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { runInvoiceOcr(tenantId: $tenantId, id: $id) { id } }', { id: await uploadedInvoice(tenant.api) })(caller),
    },
  ]),
  invoiceControllerUpdate: on(['update', 'Invoice'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/invoices/${await targets.invoice()}`, { status: 'approved' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateInvoice(tenantId: $tenantId, id: $id, input: { status: approved }) { id } }', { id: await targets.invoice() })(caller),
    },
  ]),
  invoiceControllerRemove: on(['delete', 'Invoice'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/invoices/${await targets.invoice()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteInvoice(tenantId: $tenantId, id: $id) { id } }', { id: await targets.invoice() })(caller),
    },
  ]),
  syncControllerFindAll: on(['read', 'Sync'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/syncs`)).status,
      graphql: gql('query ($tenantId: ID!) { syncs(tenantId: $tenantId) { id } }'),
    },
  ]),
  syncControllerFindOne: on(['read', 'Sync'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/syncs/${await targets.sync()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { sync(tenantId: $tenantId, id: $id) { id } }', { id: await targets.sync() })(caller),
    },
  ]),
  syncControllerCreate: on(['create', 'Sync'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/syncs`, { name: 'Walk', host: '127.0.0.1', port: 9, username: 'u', password: 'p' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createSync(tenantId: $tenantId, input: { name: "Walk", host: "127.0.0.1", port: 9, username: "u", password: "p" }) { id } }'),
    },
  ]),
  syncControllerUpdate: on(['update', 'Sync'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/syncs/${await targets.sync()}`, { name: 'Walked' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateSync(tenantId: $tenantId, id: $id, input: { name: "Walked" }) { id } }', { id: await targets.sync() })(caller),
    },
  ]),
  syncControllerRemove: on(['delete', 'Sync'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/syncs/${await targets.sync()}`)).status,
      graphql: async (caller) => gql('mutation ($tenantId: ID!, $id: ID!) { deleteSync(tenantId: $tenantId, id: $id) { id } }', { id: await targets.sync() })(caller),
    },
  ]),
  syncControllerRun: on(['update', 'Sync'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/syncs/${await targets.sync()}/run`)).status,
      graphql: async (caller) => gql('mutation ($tenantId: ID!, $id: ID!) { runSync(tenantId: $tenantId, id: $id) { id } }', { id: await targets.sync() })(caller),
    },
  ]),
  apiKeyControllerFindAll: on(['read', 'ApiKey'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/api-keys`)).status,
      graphql: gql('query ($tenantId: ID!) { apiKeys(tenantId: $tenantId) { id } }'),
    },
  ]),
  apiKeyControllerCreate: on(['create', 'ApiKey'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/api-keys`, { name: 'walk' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createApiKey(tenantId: $tenantId, input: { name: "walk" }) { id } }'),
    },
  ]),
  apiKeyControllerRemove: on(['delete', 'ApiKey'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/api-keys/${await targets.apiKey()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { revokeApiKey(tenantId: $tenantId, id: $id) { id } }', { id: await targets.apiKey() })(caller),
    },
  ]),
  projectControllerFindAll: on(['read', 'Project'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/projects`)).status,
      graphql: gql('query ($tenantId: ID!) { projects(tenantId: $tenantId) { id } }'),
    },
  ]),
  projectControllerFindOne: on(['read', 'Project'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/projects/${await targets.project()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { project(tenantId: $tenantId, id: $id) { id } }', { id: await targets.project() })(caller),
    },
  ]),
  projectControllerCreate: on(['create', 'Project'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/projects`, { name: 'New' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createProject(tenantId: $tenantId, input: { name: "New" }) { id } }'),
    },
  ]),
  projectControllerUpdate: on(['update', 'Project'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/projects/${await targets.project()}`, { name: 'Renamed' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateProject(tenantId: $tenantId, id: $id, input: { name: "Renamed" }) { id } }', {
          id: await targets.project(),
        })(caller),
    },
  ]),
  projectControllerRemove: on(['delete', 'Project'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/projects/${await targets.project()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteProject(tenantId: $tenantId, id: $id) { id } }', { id: await targets.project() })(caller),
    },
  ]),
  taskListControllerFindAll: on(['read', 'TaskList'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/task-lists`)).status,
      graphql: gql('query ($tenantId: ID!) { taskLists(tenantId: $tenantId) { id } }'),
    },
  ]),
  taskListControllerFindOne: on(['read', 'TaskList'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/task-lists/${await targets.taskList()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { taskList(tenantId: $tenantId, id: $id) { id } }', { id: await targets.taskList() })(caller),
    },
  ]),
  taskListControllerCreate: on(['create', 'TaskList'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/task-lists`, { name: 'New' })).status,
      graphql: gql('mutation ($tenantId: ID!) { createTaskList(tenantId: $tenantId, input: { name: "New" }) { id } }'),
    },
  ]),
  taskListControllerUpdate: on(['update', 'TaskList'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/task-lists/${await targets.taskList()}`, { name: 'Renamed' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateTaskList(tenantId: $tenantId, id: $id, input: { name: "Renamed" }) { id } }', {
          id: await targets.taskList(),
        })(caller),
    },
  ]),
  taskListControllerRemove: on(['delete', 'TaskList'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/task-lists/${await targets.taskList()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteTaskList(tenantId: $tenantId, id: $id) { id } }', { id: await targets.taskList() })(caller),
    },
  ]),
  taskListControllerFindTasks: on(['read', 'Task'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/task-lists/${await targets.taskList()}/tasks`)).status,
      graphql: async (caller) =>
        gql('query ($tenantId: ID!, $list: ID!) { tasks(tenantId: $tenantId, taskListId: $list) { id } }', { list: await targets.taskList() })(caller),
    },
  ]),
  taskListControllerCreateTask: on(['create', 'Task'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/task-lists/${await targets.taskList()}/tasks`, { title: 'New' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $list: ID!) { createTask(tenantId: $tenantId, taskListId: $list, input: { title: "New" }) { id } }', {
          list: await targets.taskList(),
        })(caller),
    },
  ]),
  // "Own" tasks are the ones assigned to the caller; a member changes only their status.
  taskListControllerUpdateTask: on(['update', 'Task'], eachOwner((mine) => ({
    own: mine,
    rest: async (caller) => {
      const task = await targets.task(mine ? (caller.tenantUserId ?? other.id) : null);
      return (await caller.api.patch(`/tenants/${t()}/task-lists/${task.list}/tasks/${task.id}`, { status: 'in_progress' })).status;
    },
    graphql: async (caller) => {
      const task = await targets.task(mine ? (caller.tenantUserId ?? other.id) : null);
      return gql('mutation ($tenantId: ID!, $list: ID!, $id: ID!) { updateTask(tenantId: $tenantId, taskListId: $list, id: $id, input: { status: done }) { id } }', {
        list: task.list,
        id: task.id,
      })(caller);
    },
  }))),
  taskListControllerRemoveTask: on(['delete', 'Task'], [
    {
      rest: async ({ api }) => {
        const task = await targets.task();
        return (await api.delete(`/tenants/${t()}/task-lists/${task.list}/tasks/${task.id}`)).status;
      },
      graphql: async (caller) => {
        const task = await targets.task();
        return gql('mutation ($tenantId: ID!, $list: ID!, $id: ID!) { deleteTask(tenantId: $tenantId, taskListId: $list, id: $id) { id } }', {
          list: task.list,
          id: task.id,
        })(caller);
      },
    },
  ]),
  vehicleControllerFindAll: on(['read', 'Vehicle'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/vehicles`)).status,
      graphql: gql('query ($tenantId: ID!) { vehicles(tenantId: $tenantId) { id } }'),
    },
  ]),
  vehicleControllerFindOne: on(['read', 'Vehicle'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/vehicles/${await targets.vehicle()}`)).status,
      graphql: async (caller) => gql('query ($tenantId: ID!, $id: ID!) { vehicle(tenantId: $tenantId, id: $id) { id } }', { id: await targets.vehicle() })(caller),
    },
  ]),
  vehicleControllerCreate: on(['create', 'Vehicle'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/vehicles`, { name: 'New', licensePlate: uniqueEmail('r').slice(0, 12) })).status,
      graphql: (caller) =>
        gql('mutation ($tenantId: ID!, $plate: String!) { createVehicle(tenantId: $tenantId, input: { name: "New", licensePlate: $plate }) { id } }', {
          plate: uniqueEmail('g').slice(0, 12),
        })(caller),
    },
  ]),
  vehicleControllerUpdate: on(['update', 'Vehicle'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/vehicles/${await targets.vehicle()}`, { name: 'Renamed' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateVehicle(tenantId: $tenantId, id: $id, input: { name: "Renamed" }) { id } }', {
          id: await targets.vehicle(),
        })(caller),
    },
  ]),
  vehicleControllerRemove: on(['delete', 'Vehicle'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/vehicles/${await targets.vehicle()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteVehicle(tenantId: $tenantId, id: $id) { id } }', { id: await targets.vehicle() })(caller),
    },
  ]),
  entryControllerFindAll: on(['read', 'Entry'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/entries`)).status,
      graphql: gql('query ($tenantId: ID!) { entries(tenantId: $tenantId) { id } }'),
    },
  ]),
  entryControllerFindOne: on(['read', 'Entry'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => (await caller.api.get(`/tenants/${t()}/entries/${mine ? await own.entry(caller) : await targets.entry()}`)).status,
    graphql: async (caller) =>
      gql('query ($tenantId: ID!, $id: ID!) { entry(tenantId: $tenantId, id: $id) { id } }', { id: mine ? await own.entry(caller) : await targets.entry() }, true)(caller),
  }))),
  entryControllerCreate: on(['create', 'Entry'], [
    {
      own: true,
      rest: async (caller) =>
        (await caller.api.post(`/tenants/${t()}/entries`, { startedAt: '2026-01-05T09:00:00Z', endedAt: '2026-01-05T10:00:00Z', tenantUserId: caller.tenantUserId ?? other.id })).status,
      graphql: (caller) =>
        gql('mutation ($tenantId: ID!, $owner: ID!) { createEntry(tenantId: $tenantId, input: { tenantUserId: $owner, startedAt: "2026-01-06T09:00:00Z", endedAt: "2026-01-06T10:00:00Z" }) { id } }', {
          owner: caller.tenantUserId ?? other.id,
        })(caller),
    },
    {
      own: false,
      rest: async (caller) =>
        (await caller.api.post(`/tenants/${t()}/entries`, { startedAt: '2026-01-07T09:00:00Z', endedAt: '2026-01-07T10:00:00Z', tenantUserId: other.id })).status,
      graphql: (caller) =>
        gql('mutation ($tenantId: ID!, $owner: ID!) { createEntry(tenantId: $tenantId, input: { tenantUserId: $owner, startedAt: "2026-01-08T09:00:00Z", endedAt: "2026-01-08T10:00:00Z" }) { id } }', {
          owner: other.id,
        })(caller),
    },
  ]),
  entryControllerUpdate: on(['update', 'Entry'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) =>
      (await caller.api.patch(`/tenants/${t()}/entries/${mine ? await own.entry(caller) : await targets.entry()}`, { description: 'edited' })).status,
    graphql: async (caller) =>
      gql('mutation ($tenantId: ID!, $id: ID!) { updateEntry(tenantId: $tenantId, id: $id, input: { description: "edited" }) { id } }', {
        id: mine ? await own.entry(caller) : await targets.entry(),
      }, true)(caller),
  }))),
  entryControllerRemove: on(['delete', 'Entry'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => (await caller.api.delete(`/tenants/${t()}/entries/${mine ? await own.entry(caller) : await targets.entry()}`)).status,
    graphql: async (caller) =>
      gql('mutation ($tenantId: ID!, $id: ID!) { deleteEntry(tenantId: $tenantId, id: $id) { id } }', { id: mine ? await own.entry(caller) : await targets.entry() }, true)(caller),
  }))),
  entryControllerStop: on(['update', 'Entry'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => {
      const id = mine ? await own.entry(caller, 'running') : await targets.entry('running');
      const answer = await caller.api.post(`/tenants/${t()}/entries/${id}/stop`);
      await tenant.api.post(`/tenants/${t()}/entries/${id}/stop`); // the next walk may start a timer for the same member
      return answer.status;
    },
    graphql: async (caller) => {
      const id = mine ? await own.entry(caller, 'running') : await targets.entry('running');
      const outcome = await gql('mutation ($tenantId: ID!, $id: ID!) { stopEntry(tenantId: $tenantId, id: $id) { id } }', { id }, true)(caller);
      await tenant.api.post(`/tenants/${t()}/entries/${id}/stop`);
      return outcome;
    },
  }))),
  entryControllerSubmit: on(['update', 'Entry'], eachOwner((mine) => ({
    own: mine,
    hidden: true,
    rest: async (caller) => (await caller.api.post(`/tenants/${t()}/entries/${mine ? await own.entry(caller) : await targets.entry()}/submit`)).status,
    graphql: async (caller) =>
      gql('mutation ($tenantId: ID!, $id: ID!) { submitEntry(tenantId: $tenantId, id: $id) { id } }', { id: mine ? await own.entry(caller) : await targets.entry() }, true)(caller),
  }))),
  // Reviews are walked on the other member's entries: nobody's rule about their own entries muddles the matrix here.
  entryControllerApprove: on(['approve', 'Entry'], [
    {
      own: false,
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/entries/${await targets.entry('submitted')}/approve`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { approveEntry(tenantId: $tenantId, id: $id) { id } }', { id: await targets.entry('submitted') })(caller),
    },
  ]),
  entryControllerReject: on(['approve', 'Entry'], [
    {
      own: false,
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/entries/${await targets.entry('submitted')}/reject`, { reason: 'Wrong project' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { rejectEntry(tenantId: $tenantId, id: $id, input: { reason: "Wrong project" }) { id } }', {
          id: await targets.entry('submitted'),
        })(caller),
    },
  ]),
  entryControllerReopen: on(['reopen', 'Entry'], [
    {
      own: false,
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/entries/${await targets.entry('approved')}/reopen`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { reopenEntry(tenantId: $tenantId, id: $id) { id } }', { id: await targets.entry('approved') })(caller),
    },
  ]),
  notificationControllerFindAll: on(['read', 'Notification'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/notifications`)).status,
      graphql: gql('query ($tenantId: ID!) { notifications(tenantId: $tenantId) { id } }'),
    },
  ]),
  // Everyone's notifications are their own: another's is not found, whatever the role (their own are walked in notifications.test.ts).
  notificationControllerMarkRead: on(['update', 'Notification'], [
    {
      own: false,
      hidden: true,
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/notifications/${await targets.notification()}/read`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { markNotificationRead(tenantId: $tenantId, id: $id) { id } }', { id: await targets.notification() }, true)(caller),
    },
  ]),
  notificationControllerMarkAllRead: on(['update', 'Notification'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/notifications/read-all`)).status,
      graphql: gql('mutation ($tenantId: ID!) { markAllNotificationsRead(tenantId: $tenantId) { count } }'),
    },
  ]),
  notificationControllerRemove: on(['delete', 'Notification'], [
    {
      own: false,
      hidden: true,
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/notifications/${await targets.notification()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteNotification(tenantId: $tenantId, id: $id) { id } }', { id: await targets.notification() }, true)(caller),
    },
  ]),
  webhookControllerFindAll: on(['read', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/webhooks`)).status,
      graphql: gql('query ($tenantId: ID!) { webhooks(tenantId: $tenantId) { id } }'),
    },
  ]),
  webhookControllerFindOne: on(['read', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/webhooks/${(await targets.sharedWebhook()).id}`)).status,
      graphql: async (caller) =>
        gql('query ($tenantId: ID!, $id: ID!) { webhook(tenantId: $tenantId, id: $id) { id } }', { id: (await targets.sharedWebhook()).id })(caller),
    },
  ]),
  webhookControllerCreate: on(['create', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/webhooks`, { url: 'http://127.0.0.1:9/walk', events: ['note.created'] })).status,
      graphql: gql('mutation ($tenantId: ID!) { createWebhook(tenantId: $tenantId, input: { url: "http://127.0.0.1:9/walk", events: ["note.created"] }) { id } }'),
    },
  ]),
  webhookControllerUpdate: on(['update', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.patch(`/tenants/${t()}/webhooks/${(await targets.sharedWebhook()).id}`, { description: 'walked' })).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { updateWebhook(tenantId: $tenantId, id: $id, input: { description: "walked" }) { id } }', {
          id: (await targets.sharedWebhook()).id,
        })(caller),
    },
  ]),
  webhookControllerRemove: on(['delete', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.delete(`/tenants/${t()}/webhooks/${await targets.webhook()}`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { deleteWebhook(tenantId: $tenantId, id: $id) { id } }', { id: await targets.webhook() })(caller),
    },
  ]),
  webhookControllerFindDeliveries: on(['read', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/webhooks/${(await targets.sharedWebhook()).id}/deliveries`)).status,
      graphql: async (caller) =>
        gql('query ($tenantId: ID!, $id: ID!) { webhookDeliveries(tenantId: $tenantId, webhookId: $id) { id } }', { id: (await targets.sharedWebhook()).id })(caller),
    },
  ]),
  webhookControllerTest: on(['update', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/webhooks/${(await targets.sharedWebhook()).id}/test`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { testWebhook(tenantId: $tenantId, id: $id) { id } }', { id: (await targets.sharedWebhook()).id })(caller),
    },
  ]),
  webhookControllerRotateSecret: on(['update', 'Webhook'], [
    {
      rest: async ({ api }) => (await api.post(`/tenants/${t()}/webhooks/${(await targets.sharedWebhook()).id}/rotate-secret`)).status,
      graphql: async (caller) =>
        gql('mutation ($tenantId: ID!, $id: ID!) { rotateWebhookSecret(tenantId: $tenantId, id: $id) { id } }', { id: (await targets.sharedWebhook()).id })(caller),
    },
  ]),
  webhookControllerRedeliver: on(['update', 'Webhook'], [
    {
      rest: async ({ api }) => {
        const { id, deliveryId } = await targets.sharedWebhook();
        return (await api.post(`/tenants/${t()}/webhooks/${id}/deliveries/${deliveryId}/redeliver`)).status;
      },
      graphql: async (caller) => {
        const { id, deliveryId } = await targets.sharedWebhook();
        return gql('mutation ($tenantId: ID!, $id: ID!, $d: ID!) { redeliverWebhookDelivery(tenantId: $tenantId, webhookId: $id, deliveryId: $d) { id } }', {
          id,
          d: deliveryId,
        })(caller);
      },
    },
  ]),
  searchControllerSearch: on(['read', 'Search'], [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/search`, { query: { q: 'target' } })).status,
      graphql: gql('query ($tenantId: ID!) { search(tenantId: $tenantId, q: "target") { id } }'),
    },
  ]),
};

const permissionRoutes = compileRoutes(schema, routeTable).filter(
  (route): route is CompiledRoute & { access: { kind: 'tenant' } } => route.access.kind === 'tenant',
);

/** What the matrix says about a walk of a route, for a role. */
function expected(role: Role, route: CompiledRoute & { access: { kind: 'tenant' } }, walk: Walk): Outcome {
  const [action, subject] = route.access.permission;
  const reach = reachOf(role, action, subject);
  const granted = walk.own === undefined ? reach !== 'none' : reach === 'any' || reach === (walk.own ? 'own' : 'others');
  return granted ? 'allowed' : 'forbidden';
}

describe('the permission matrix, walked against the running API', () => {
  it('has a walk for every route that declares a permission, and none for routes that do not exist', () => {
    const declared = permissionRoutes.map((route) => route.operationId).sort();
    expect(declared.filter((operationId) => !walks[operationId]), 'routes without a walk').toEqual([]);
    expect(Object.keys(walks).filter((operationId) => !declared.includes(operationId)), 'walks without a route').toEqual([]);
  });

  it('declares on every route the permission the role table promises', () => {
    const declaredPairs = Object.fromEntries(permissionRoutes.map((route) => [route.operationId, route.access.permission]));
    const promised = Object.fromEntries(Object.entries(walks).map(([operationId, entry]) => [operationId, entry.permission]));
    expect(declaredPairs).toEqual(promised);
  });

  it.each(['owner', 'admin', 'manager', 'member', 'api key'])('%s: every route answers as the matrix says, over REST and GraphQL', async (name) => {
    const caller = callers.find((each) => each.name === name);
    if (!caller) throw new Error(`no caller ${name}`);
    const answers: string[] = [];
    const wanted: string[] = [];
    for (const route of permissionRoutes) {
      for (const walk of walks[route.operationId]?.walks ?? []) {
        const label = `${route.operationId}${walk.own === undefined ? '' : walk.own ? ' (own)' : ' (others)'}`;
        const outcome = expected(caller.role, route, walk);
        answers.push(`${label} REST ${restOutcome(await walk.rest(caller), walk.hidden === true)}`);
        wanted.push(`${label} REST ${outcome}`);
        if (walk.graphql) {
          answers.push(`${label} GraphQL ${await walk.graphql(caller)}`);
          wanted.push(`${label} GraphQL ${outcome}`);
        }
      }
    }
    expect(answers).toEqual(wanted);
  });
});

describe('refusals that do not depend on the role', () => {
  it("answers 404 for another tenant's routes whatever the role", async () => {
    const elsewhere = await seeder(server).tenant();
    for (const caller of callers) {
      const response = await caller.api.get<Json>(`/tenants/${elsewhere.id}/notes`);
      expect(response.status, caller.name).toBe(404);
    }
  });

  it('answers 403 TENANT_SUSPENDED for every role of a suspended tenant, and restores', async () => {
    await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'suspended' } });
    try {
      for (const caller of callers) {
        const rest = await caller.api.get<Json>(`/tenants/${tenant.id}/notes`);
        expect(rest.body.code, caller.name).toBe('TENANT_SUSPENDED');
        const graphql = await caller.api.graphql('query ($tenantId: ID!) { notes(tenantId: $tenantId) { id } }', { tenantId: tenant.id });
        expect(graphql.body.errors?.[0]?.extensions?.code, caller.name).toBe('TENANT_SUSPENDED');
      }
    } finally {
      await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'active' } });
    }
  });
});
