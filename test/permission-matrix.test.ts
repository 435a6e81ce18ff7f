/**
 * Walks the permission matrix (src/auth/permissions.ts) against the running
 * API: each role, and an API key, over every REST route that declares a
 * permission and over the same field in GraphQL, on a record of the caller's
 * own and on someone else's wherever a role's grant reaches only one of them.
 *
 * The walks are generated from the compiled routes (path, field, arguments,
 * permission) and per-subject fixtures below; only native rows (uploads,
 * downloads) are written by hand. What each caller may do is read from the
 * matrix and its ownership declarations, never written here. A route whose
 * subject, body or parameters have no fixture fails the coverage test, so a
 * new resource cannot land without its matrix walk.
 *
 * A record is made anew after a call that wrote to it; a call that read it,
 * or was refused, leaves it for the GraphQL half of the same walk, and a read
 * of someone else's record is one record for every caller (what that saves:
 * docs/performance.md, "CI time").
 */
import { randomBytes } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { getNamedType, isCompositeType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ownership, reachOf, type Subject, type Role } from '../src/auth/permissions.js';
import { compileRoutes, type CompiledGraphQLRoute, type CompiledRoute } from '../src/rest/compile.js';
import { routeTable } from '../src/routes.js';
import { schema } from '../src/schema.js';
import { daysAgo, msAgo, testClock } from './helpers/clock.js';
import { createLogger } from '../src/lib/logger.js';
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
/** The client the client-invoice walks bill. */
let billedClientId: string;

/** Who walks the routes: a role, an API key. */
interface Caller {
  name: string;
  role: Role;
  api: ApiClient;
  /** Their member record; null for the API key, which owns nothing. */
  tenantUserId: string | null;
}
const callers: Caller[] = [];
/** Every caller by name, for `it.each`. */
const callerNames = ['owner', 'admin', 'manager', 'member', 'api key'];

function callerNamed(name: string): Caller {
  const caller = callers.find((each) => each.name === name);
  if (!caller) throw new Error(`no caller ${name}`);
  return caller;
}

beforeAll(async () => {
  provider = await startIdentityProvider();
  // Webhook walks point at a closed loopback port: nothing is listening there, nothing leaves the machine.
  server = await startTestServer({ env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const seed = seeder(server, provider);
  const tenantStep = seed.tenant();
  tenant = await tenantStep;
  // Reviews are walked too: entries wait for approval once submitted.
  await tenant.api.patch(`/tenants/${tenant.id}`, { settings: { approvalRequired: true } });
  const absenceTypes = await tenant.api.get<{ id: string; kind: string }[]>(`/tenants/${tenant.id}/absence-types`);
  vacationTypeId = absenceTypes.body.find((type) => type.kind === 'vacation')?.id ?? '';
  callers.push({ name: 'api key', role: 'admin', api: tenant.api, tenantUserId: null });
  for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
    const member = await tenantStep.member(role);
    callers.push({ name: role, role, api: member.api, tenantUserId: member.id });
  }
  other = await tenantStep.member('member');
  // Client invoices are issued: the seller's profile must be complete, and invoices need a client.
  const profile = await tenant.api.patch(`/tenants/${tenant.id}/billing-profile`, {
    legalName: 'Walk GmbH',
    address: { line1: 'Weg 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
    vatId: 'DE123456789',
    email: 'walk@example.com',
    iban: 'DE89370400440532013000',
    defaultTaxRate: '19.00',
  });
  if (profile.status !== 200) throw new Error(`could not write the billing profile: ${profile.text}`);
  billedClientId = await created(
    tenant.api.post(`/tenants/${tenant.id}/clients`, {
      name: 'Billed client',
      billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
    }),
    'a client',
  );
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

/** Distinct, ordered times: each entry a walk makes gets an hour of its own (no overlap, nothing random). */
let entriesMade = 0;
function nextHour(): { startedAt: string; endedAt: string } {
  const start = Date.UTC(2026, 1, 1) + entriesMade++ * 3_600_000;
  return { startedAt: new Date(start).toISOString(), endedAt: new Date(start + 1_800_000).toISOString() };
}

/** A client invoice of one manual line (no time needed). */
const clientInvoiceBody = (): Json => ({
  clientId: billedClientId,
  periodFrom: '2026-01-01',
  periodTo: '2026-01-31',
  lines: [{ description: 'Walked fee', quantity: '1', unitPrice: '100.00' }],
});

/** A recurring invoice of the same line, monthly from far in the future (no worker makes anything of it). */
const recurringInvoiceBody = (): Json => ({
  clientId: billedClientId,
  lines: [{ description: 'Walked fee', quantity: '1', unitPrice: '100.00' }],
  interval: 'month',
  startDate: '2030-01-01',
});

type EntryState = 'draft' | 'submitted' | 'approved' | 'running';

/** An entry of `owner`, made with the tenant's key, in `state`. */
async function entryOf(owner: string, state: EntryState, extra: Json = {}): Promise<string> {
  if (state === 'running') {
    // One timer per member: stop whatever an earlier walk left running.
    await server.app.db.entry.updateMany({ where: { tenantId: t(), tenantUserId: owner, endedAt: null }, data: { endedAt: testClock.now() } });
  }
  const { startedAt, endedAt } = nextHour();
  const times = state === 'running' ? { startedAt: msAgo(3_600_000).toISOString() } : { startedAt, endedAt };
  const id = await created(tenant.api.post(`/tenants/${t()}/entries`, { tenantUserId: owner, ...times, ...(extra as object) }), 'an entry');
  if (state === 'submitted' || state === 'approved') await tenant.api.post(`/tenants/${t()}/entries/${id}/submit`);
  if (state === 'approved') await tenant.api.post(`/tenants/${t()}/entries/${id}/approve`);
  return id;
}

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

/** A header-only Kimai file: queued, then done with 0 rows. */
function importFile(api: ApiClient) {
  const form = new FormData();
  form.append('source', 'kimai');
  form.append(
    'file',
    new Blob(['Date,From,To,Duration,Name,User,E-mail,Customer,Project,Activity,Description,Billable,Tags\n'], { type: 'text/csv' }),
    'walk.csv',
  );
  return api.request<{ id: string }>('POST', `/tenants/${t()}/imports`, form);
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

/** A day no walk has used yet: schedules, holidays and absences each need a date of their own (far ahead: never in effect). */
let daysUsed = 0;
function nextDay(): string {
  daysUsed += 1;
  return new Date(Date.UTC(2200, 0, 1 + daysUsed)).toISOString().slice(0, 10);
}
const week = { mon: 480, tue: 480, wed: 480, thu: 480, fri: 0, sat: 0, sun: 0 };
/** The tenant's Vacation type (every tenant starts with it), read once the tenant exists. */
let vacationTypeId = '';

/** The shared webhook that read, test and redelivery walks use (create and delete walks make their own). */
let sharedWebhook: Promise<{ webhookId: string; deliveryId: string }> | undefined;
const webhookOf = () =>
  (sharedWebhook ??= (async () => {
    const webhookId = await created(tenant.api.post(`/tenants/${t()}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 'a webhook');
    const test = await tenant.api.post<{ id: string }>(`/tenants/${t()}/webhooks/${webhookId}/test`);
    return { webhookId, deliveryId: test.body.id };
  })());

/**
 * What a subject's routes need: the path values (besides tenantId) of a
 * record fit for the route's action, owned by `owner` where ownership matters
 * (null: someone else's, made by the tenant's key or for the other member);
 * the bodies by route action; the query by route action.
 */
interface Fixture {
  values?(action: string, owner: Caller | null): Promise<Record<string, string>>;
  bodies?: Record<string, (owner: Caller | null) => Json>;
  query?: Record<string, Record<string, string>>;
  /** Its create says whose record it makes (an entry for another member): create is walked for own and others'. */
  createsForOthers?: true;
  /** Its records are always the caller's own (a calendar feed): a caller without a member id (an API key) has none to make. */
  callersOwn?: true;
}

const entryStateFor: Record<string, EntryState> = { approve: 'submitted', reject: 'submitted', reopen: 'approved', stop: 'running' };

const fixtures: Partial<Record<Subject, Fixture>> = {
  Tenant: { bodies: { update: () => ({ name: 'Walked tenant' }) } },
  BillingProfile: { bodies: { update: () => ({ legalName: 'Walked GmbH' }) } },
  TenantUser: {
    values: async () => ({ tenantUserId: await created(tenant.api.post(`/tenants/${t()}/users`, { email: uniqueEmail('target') }), 'a member') }),
    bodies: { create: () => ({ email: uniqueEmail('walk') }), update: () => ({ name: 'Walked' }) },
  },
  ApiKey: {
    values: async () => ({ apiKeyId: await created(tenant.api.post(`/tenants/${t()}/api-keys`, { name: 'target' }), 'a key') }),
    bodies: { create: () => ({ name: 'walk' }) },
  },
  Note: {
    values: async (_action, owner) => ({ noteId: await created((owner?.api ?? tenant.api).post(`/tenants/${t()}/notes`, { content: 'walked' }), 'a note') }),
    bodies: { create: () => ({ content: 'walk' }), update: () => ({ content: 'edited' }) },
  },
  Project: {
    values: async () => ({ projectId: await created(tenant.api.post(`/tenants/${t()}/projects`, { name: 'Target project' }), 'a project') }),
    bodies: { create: () => ({ name: 'Walk' }), update: () => ({ name: 'Walked' }) },
  },
  Client: {
    values: async () => ({ clientId: await created(tenant.api.post(`/tenants/${t()}/clients`, { name: uniqueEmail('client') }), 'a client') }),
    bodies: { create: () => ({ name: uniqueEmail('walk') }), update: () => ({ notes: 'walked' }) },
  },
  ProjectMember: {
    // A project of its own; the other member works on it, except where the walk adds them.
    values: async (action) => {
      const projectId = await created(tenant.api.post(`/tenants/${t()}/projects`, { name: 'Staffed project' }), 'a project');
      if (action !== 'addMember')
        await created(tenant.api.post(`/tenants/${t()}/projects/${projectId}/members`, { tenantUserId: other.id }), 'a project member');
      return { projectId, tenantUserId: other.id };
    },
    bodies: { addMember: () => ({ tenantUserId: other.id, hourlyRate: '70' }), updateMember: () => ({ hourlyRate: '75' }) },
  },
  TaskList: {
    values: async () => ({ taskListId: await created(tenant.api.post(`/tenants/${t()}/task-lists`, { name: 'Target list' }), 'a task list') }),
    bodies: { create: () => ({ name: 'Walk' }), update: () => ({ name: 'Walked' }) },
  },
  Task: {
    // A task of its own list, assigned to the owner (someone else's: unassigned).
    values: async (_action, owner) => {
      const taskListId = await created(tenant.api.post(`/tenants/${t()}/task-lists`, { name: 'Target list' }), 'a task list');
      const assignee = owner?.tenantUserId ? { assigneeId: owner.tenantUserId } : {};
      const taskId = await created(tenant.api.post(`/tenants/${t()}/task-lists/${taskListId}/tasks`, { title: 'Target', ...assignee }), 'a task');
      return { taskListId, taskId };
    },
    bodies: { createTask: () => ({ title: 'Walk' }), updateTask: () => ({ status: 'in_progress' }) },
  },
  Vehicle: {
    values: async () => ({
      vehicleId: await created(tenant.api.post(`/tenants/${t()}/vehicles`, { name: 'Van', licensePlate: uniqueEmail('p').slice(0, 12) }), 'a vehicle'),
    }),
    bodies: { create: () => ({ name: 'Walk', licensePlate: uniqueEmail('r').slice(0, 12) }), update: () => ({ name: 'Walked' }) },
  },
  Entry: {
    values: async (action, owner) => ({ entryId: await entryOf(owner?.tenantUserId ?? other.id, entryStateFor[action] ?? 'draft') }),
    bodies: {
      create: (owner) => ({ tenantUserId: owner?.tenantUserId ?? other.id, ...nextHour() }),
      update: () => ({ description: 'edited' }),
      reject: () => ({ reason: 'Wrong project' }),
    },
    createsForOthers: true,
  },
  // An entry's history: of the caller's own entry, or someone else's.
  EntryHistory: { values: async (_action, owner) => ({ entryId: await entryOf(owner?.tenantUserId ?? other.id, 'draft') }) },
  ClientInvoice: {
    // A draft of a manual line; issued first where the action needs an issued invoice.
    values: async (action) => {
      // Sending a reminder (mailed in tests/client-invoice-mail.test.ts; here without SMTP: only marked sent).
      if (action === 'sendReminder') {
        // /tenants/{t}/client-invoices/{id}/reminders/{reminderId}/pdf
        const [, , , clientInvoiceId, , reminderId] = (await remindedClientInvoice()).split('/').filter(Boolean);
        const ids: Record<string, string> = { clientInvoiceId: clientInvoiceId as string, reminderId: reminderId as string };
        return ids;
      }
      const id = await created(tenant.api.post(`/tenants/${t()}/client-invoices`, clientInvoiceBody()), 'a client invoice');
      if (['markSent', 'pay', 'void'].includes(action)) await tenant.api.post(`/tenants/${t()}/client-invoices/${id}/issue`);
      return { clientInvoiceId: id };
    },
    bodies: {
      create: () => clientInvoiceBody(),
      update: () => ({ notes: 'walked' }),
      markSent: () => ({}),
      pay: () => ({ paidAt: '2026-02-01' }),
      sendReminder: () => ({}),
    },
  },
  RecurringInvoice: {
    values: async () => ({
      recurringInvoiceId: await created(tenant.api.post(`/tenants/${t()}/recurring-invoices`, recurringInvoiceBody()), 'a recurring invoice'),
    }),
    bodies: { create: () => recurringInvoiceBody(), update: () => ({ dayOfPeriod: 2 }) },
  },
  Invoice: {
    // Running OCR again needs a file whose first run has finished.
    values: async (action, owner) => ({
      invoiceId:
        action === 'ocr'
          ? await uploadedInvoice(owner?.api ?? tenant.api)
          : await created((owner?.api ?? tenant.api).post(`/tenants/${t()}/invoices`, { number: 'walked' }), 'an invoice'),
    }),
    bodies: { create: () => ({ number: 'walk' }), update: () => ({ status: 'approved' }) },
  },
  /** A mailbox sync on a closed loopback port: a run fails at once, touching nothing. */
  Sync: {
    values: async () => ({
      syncId: await created(
        tenant.api.post(`/tenants/${t()}/syncs`, { name: 'Walk', host: '127.0.0.1', port: 9, secure: false, username: 'walk', password: 'walk' }),
        'a sync',
      ),
    }),
    bodies: { create: () => ({ name: 'Walk', host: '127.0.0.1', port: 9, username: 'u', password: 'p' }), update: () => ({ name: 'Walked' }) },
  },
  /** An import the tenant's key queued (a header-only file: it is done at once). */
  Import: {
    values: async () => {
      const answer = await importFile(tenant.api);
      if (answer.status !== 202) throw new Error(`could not start an import: ${answer.status} ${answer.text}`);
      return { importId: answer.body.id };
    },
  },
  Search: { query: { search: { q: 'walked' } } },
  Notification: {
    values: async (_action, owner) => ({
      notificationId: (
        await server.app.db.notification.create({
          data: { tenantId: t(), tenantUserId: owner?.tenantUserId ?? other.id, type: 'task.assigned', title: 'Walked' },
        })
      ).id,
    }),
  },
  WorkSchedule: {
    // The schedules of the owner (or the other member).
    values: async (action, owner) => ({
      tenantUserId: owner?.tenantUserId ?? other.id,
      ...(action === 'remove'
        ? {
            workScheduleId: await created(
              tenant.api.post(`/tenants/${t()}/users/${owner?.tenantUserId ?? other.id}/work-schedules`, { validFrom: nextDay(), minutes: week }),
              'a work schedule',
            ),
          }
        : {}),
    }),
    bodies: { create: () => ({ validFrom: nextDay(), minutes: week }) },
  },
  Holiday: {
    values: async () => ({ holidayId: await created(tenant.api.post(`/tenants/${t()}/holidays`, { date: nextDay(), name: 'Walked' }), 'a holiday') }),
    bodies: { create: () => ({ date: nextDay(), name: 'Walk', fraction: 0.5 }) },
  },
  AbsenceType: {
    values: async () => ({
      absenceTypeId: await created(
        tenant.api.post(`/tenants/${t()}/absence-types`, {
          name: uniqueEmail('type'),
          kind: 'other',
          countsAsWork: true,
          deductsVacation: false,
          needsApproval: true,
        }),
        'an absence type',
      ),
    }),
    bodies: {
      create: () => ({ name: uniqueEmail('walk'), kind: 'other', countsAsWork: false, deductsVacation: false, needsApproval: false }),
      update: () => ({ needsApproval: false }),
    },
  },
  Expense: {
    // A draft expense of the owner or of the other member (with no client: no invoice claims it); submitted where it is reviewed.
    values: async (action, owner) => {
      const body = { category: 'travel', amount: '11.90', taxRate: '19', tenantUserId: owner?.tenantUserId ?? other.id };
      const id = await created(tenant.api.post(`/tenants/${t()}/expenses`, body), 'an expense');
      if (action === 'approve' || action === 'reject') await tenant.api.post(`/tenants/${t()}/expenses/${id}/submit`);
      return { expenseId: id };
    },
    bodies: {
      create: (owner) => ({ category: 'travel', amount: '5.00', tenantUserId: owner?.tenantUserId ?? other.id }),
      update: () => ({ description: 'walked' }),
      reject: () => ({ reason: 'No receipt' }),
    },
    createsForOthers: true,
  },
  Absence: {
    // A pending absence of its own day, of the owner or of the other member.
    values: async (_action, owner) => {
      const day = nextDay();
      const body = { absenceTypeId: vacationTypeId, startDate: day, endDate: day, tenantUserId: owner?.tenantUserId ?? other.id };
      return { absenceId: await created(tenant.api.post(`/tenants/${t()}/absences`, body), 'an absence') };
    },
    bodies: {
      create: (owner) => {
        const day = nextDay();
        return { absenceTypeId: vacationTypeId, startDate: day, endDate: day, tenantUserId: owner?.tenantUserId ?? other.id };
      },
      update: () => ({ note: 'walked' }),
      reject: () => ({ reason: 'Busy week' }),
    },
    query: { findBusy: { from: '2200-01-01', to: '2200-12-31' } },
    createsForOthers: true,
  },
  // A member's balance and vacation account: of the owner, or of the other member.
  TimeBalance: {
    values: async (_action, owner) => ({ tenantUserId: owner?.tenantUserId ?? other.id }),
    query: { findOne: { from: '2027-03-01', to: '2027-03-31' } },
    bodies: { correct: () => ({ minutes: -60, reason: 'Walked' }) },
  },
  // A member's working days under the law, and the team's violations.
  WorkingTime: {
    values: async (_action, owner) => ({ tenantUserId: owner?.tenantUserId ?? other.id }),
    query: { findOne: { from: '2027-03-01', to: '2027-03-31' } },
  },
  TeamWorkingTime: { query: { findViolations: { from: '2027-03-01', to: '2027-03-31' } } },
  Vacation: {
    values: async (_action, owner) => ({ tenantUserId: owner?.tenantUserId ?? other.id, year: '2027' }),
    bodies: { setVacation: () => ({ allowanceDays: 30 }), correct: () => ({ days: 1, reason: 'Walked' }) },
  },
  // The caller's own feed URL (users/me/calendar-token); revoking none is no error.
  CalendarToken: { callersOwn: true },
  Webhook: {
    values: async (action) =>
      action === 'remove'
        ? { webhookId: await created(tenant.api.post(`/tenants/${t()}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 'a webhook') }
        : webhookOf(),
    bodies: { create: () => ({ url: 'http://127.0.0.1:9/walk', events: ['note.created'] }), update: () => ({ description: 'walked' }) },
  },
};

type Outcome = 'allowed' | 'forbidden' | `unexpected ${string}`;

/**
 * 403 is a refusal. So is 404 where the walk's record is one the caller
 * cannot read: another member's entry is not found, rather than forbidden.
 */
function restOutcome(status: number, hidden: boolean): Outcome {
  if (status < 300) return 'allowed';
  if (status === 403 || (hidden && status === 404)) return 'forbidden';
  return `unexpected ${status}`;
}

function graphqlOutcome(body: { errors?: { extensions?: { code?: string } }[] }, hidden: boolean): Outcome {
  const code = body.errors?.[0]?.extensions?.code;
  if (code === undefined) return 'allowed';
  return code === 'FORBIDDEN' || (hidden && code === 'NOT_FOUND') ? 'forbidden' : `unexpected ${code}`;
}

/**
 * One walk of a route for one caller, over REST and GraphQL. `own`: on a
 * record of the caller's own (true) or someone else's (false); undefined
 * where no role's grant tells them apart.
 */
interface Walk {
  own?: boolean;
  /** The walk's own record is owned by the caller (acted on, or made for them): a caller without a member id has none. */
  needsOwner?: boolean;
  rest(caller: Caller): Promise<number>;
  /** The same operation in GraphQL; none for native rows (uploads, downloads). */
  graphql?(caller: Caller): Promise<{ errors?: { extensions?: { code?: string } }[] }>;
}

type TenantRoute = CompiledRoute & { access: { kind: 'tenant' } };

const permissionRoutes = compileRoutes(schema, routeTable).filter((route): route is TenantRoute => route.access.kind === 'tenant');

/** Some role's grant for (action, subject) reaches only own records, or only others': walks tell them apart. */
const ownershipMatters = ([action, subject]: TenantRoute['access']['permission']): boolean =>
  Object.hasOwn(ownership, subject) &&
  (['owner', 'admin', 'manager', 'member'] as const).some((role) => ['own', 'others'].includes(reachOf(role, action, subject)));

/** The route's path with its parameters filled. */
const pathOf = (route: CompiledRoute, values: Record<string, string>): string =>
  `/${route.segments.map((segment) => ('literal' in segment ? segment.literal : encodeURIComponent(values[segment.param] ?? `missing-${segment.param}`))).join('/')}`;

/** The route's field as a GraphQL operation, with the variables the REST call sends: path values, query and body. */
function graphqlOf(route: CompiledGraphQLRoute, values: Record<string, string>, query: Record<string, string>, body: Json | undefined) {
  const variables: Json = { ...query };
  for (const [param, argument] of Object.entries(route.pathArguments)) variables[argument] = values[param];
  // The body is the field's `input` argument (src/rest/compile.ts).
  if (route.body && body !== undefined) variables.input = body;
  const args = route.graphqlField.args.filter((argument) => argument.name in variables);
  const declarations = args.map((argument) => `$${argument.name}: ${String(argument.type)}`).join(', ');
  const call = args.map((argument) => `${argument.name}: $${argument.name}`).join(', ');
  const selection = isCompositeType(getNamedType(route.graphqlField.type)) ? ' { __typename }' : '';
  const operation = route.rootType === 'Query' ? 'query' : 'mutation';
  return { query: `${operation} (${declarations}) { ${route.fieldName}(${call})${selection} }`, variables };
}

/** What a generated walk of `route` lacks (a fixture, a body, a query), or nothing. */
function missingFixtures(route: TenantRoute): string[] {
  if (route.kind === 'native') return handWritten[route.operationId] ? [] : ['a hand-written walk (native row)'];
  const subject = route.access.permission[1];
  const fixture = fixtures[subject];
  if (!fixture) return [`a fixture for ${subject}`];
  const params = route.segments.flatMap((segment) => ('param' in segment && segment.param !== 'tenantId' ? [segment.param] : []));
  return [
    ...(params.length > 0 && !fixture.values ? [`${subject} values for ${params.join(', ')}`] : []),
    ...(route.body && !fixture.bodies?.[route.action] ? [`a ${route.body.name} body (${subject} bodies.${route.action})`] : []),
    ...(Object.keys(route.queryArguments).some((name) => !(route.argsSchema.shape[name] as z.ZodType).safeParse(undefined).success) &&
    !fixture.query?.[route.action]
      ? [`a query for ${route.action} (${subject} query.${route.action})`]
      : []),
  ];
}

/** The walks of a GraphQL-backed route, generated: one per owner where ownership matters, else one. */
function generatedWalks(route: CompiledGraphQLRoute & TenantRoute): Walk[] {
  const subject = route.access.permission[1];
  const fixture = fixtures[subject] ?? {};
  // A path under a member (users/{tenantUserId}/work-schedules) addresses their records as much as a record's id does.
  const addressesOwner =
    Object.hasOwn(ownership, subject) && ownership[subject as keyof typeof ownership].field === 'tenantUserId' && 'tenantUserId' in route.pathArguments;
  const addressesRecord = Object.values(route.pathArguments).includes('id') || addressesOwner;
  const creates = route.action.startsWith('create');
  const owners: (boolean | undefined)[] = !ownershipMatters(route.access.permission)
    ? [undefined]
    : addressesRecord || (creates && fixture.createsForOthers)
      ? [false, true]
      : creates
        ? [true]
        : [undefined];
  const needsOwner = addressesRecord || fixture.createsForOthers === true || fixture.callersOwn === true;
  const reads = route.method === 'GET' && route.access.permission[0] === 'read';
  return owners.map((own) => {
    const ownerOf = (caller: Caller): Caller | null => (own ? caller : null);
    const valuesFor = (owner: Caller | null): Promise<Record<string, string>> => (fixture.values ? fixture.values(route.action, owner) : Promise.resolve({}));
    // A read of a record that is not the caller's (made with the tenant's key or for the other member, whoever
    // walks): one record for every caller.
    const sharedRecord = once(() => valuesFor(null));
    const recordFor = (caller: Caller) => (reads && own !== true ? sharedRecord() : valuesFor(ownerOf(caller)));
    // The record the REST half read, or was refused (left as it was): the GraphQL half of the same caller acts on it.
    let untouched: { caller: Caller; values: Record<string, string> } | undefined;
    const request = (caller: Caller, values: Record<string, string>) => ({
      values: { tenantId: t(), ...values },
      body: route.body ? fixture.bodies?.[route.action]?.(ownerOf(caller)) : undefined,
      query: fixture.query?.[route.action] ?? {},
    });
    return {
      own,
      needsOwner: (own === true || fixture.callersOwn === true) && needsOwner,
      rest: async (caller) => {
        const record = await recordFor(caller);
        const { values, body, query } = request(caller, record);
        const { status } = await caller.api.request(route.method, pathOf(route, values), body, { query });
        untouched = reads || status >= 300 ? { caller, values: record } : undefined;
        return status;
      },
      graphql: async (caller) => {
        const kept = untouched?.caller === caller ? untouched.values : undefined;
        untouched = undefined;
        const { values, body, query } = request(caller, kept ?? (await recordFor(caller)));
        const operation = graphqlOf(route, values, query, body);
        return (await caller.api.graphql(operation.query, operation.variables)).body;
      },
    };
  });
}

/** `make`'s answer, made on the first call and shared by the later ones. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** Native rows: REST only, written by hand. */
const handWritten: Record<string, Walk[]> = {
  invoiceControllerUpload: [{ own: true, rest: async ({ api }) => (await uploadInvoice(api)).status }],
  importControllerCreate: [{ rest: async ({ api }) => (await importFile(api)).status }],
  // A receipt for a draft expense of the caller's own, or of someone else's.
  expenseControllerReceipt: [false, true].map((own) => ({
    own,
    needsOwner: own,
    rest: async (caller: Caller) => {
      const owner = own ? (caller.tenantUserId ?? other.id) : other.id;
      const expenseId = await created(tenant.api.post(`/tenants/${t()}/expenses`, { category: 'walk', tenantUserId: owner }), 'an expense');
      const form = new FormData();
      form.append('file', pngFile(), 'receipt.png');
      return (await caller.api.request('POST', `/tenants/${t()}/expenses/${expenseId}/receipt`, form)).status;
    },
  })),
  // Someone else's file: one upload (by the tenant's key) that every caller reads.
  invoiceControllerDownload: [false, true].map((own) => {
    const othersFile = once(() => uploadedInvoice(tenant.api));
    return {
      own,
      needsOwner: own,
      rest: async (caller: Caller) =>
        (await caller.api.get(`/tenants/${t()}/invoices/${await (own ? uploadedInvoice(caller.api) : othersFile())}/file`)).status,
    };
  }),
  // Everyone reads reports; what of them is theirs the Entry scope decides (tests/reports.test.ts).
  reportControllerSummary: [
    {
      rest: async ({ api }) =>
        (await api.get(`/tenants/${t()}/reports/summary`, { query: { from: '2026-01-01', to: '2026-01-31', groupBy: 'project' } })).status,
      graphql: async ({ api }) =>
        (
          await api.graphql('query ($t: ID!) { reportSummary(tenantId: $t, from: "2026-01-01", to: "2026-01-31", groupBy: project) { totals { entries } } }', {
            t: t(),
          })
        ).body,
    },
  ],
  // The whole tenant's feed (a page from the start).
  eventControllerFindAll: [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/events`, { query: { limit: 5 } })).status,
      graphql: async ({ api }) => (await api.graphql('query ($t: ID!) { events(tenantId: $t, first: 5) { edges { cursor } } }', { t: t() })).body,
    },
  ],
  reportControllerDetailed: [
    {
      rest: async ({ api }) => (await api.get(`/tenants/${t()}/reports/detailed`, { query: { from: '2026-01-01', to: '2026-01-31' } })).status,
      graphql: async ({ api }) =>
        (await api.graphql('query ($t: ID!) { reportEntries(tenantId: $t, from: "2026-01-01", to: "2026-01-31", first: 5) { edges { cursor } } }', { t: t() }))
          .body,
    },
  ],
};

// An issued client invoice's files (read in tests/client-invoice-files.test.ts): its PDF, and its plain CII. Reading
// leaves it as it was: one invoice that every caller reads, over REST and GraphQL.
const issuedClientInvoice = once(async (): Promise<string> => {
  const id = await created(tenant.api.post(`/tenants/${t()}/client-invoices`, clientInvoiceBody()), 'a client invoice');
  await tenant.api.post(`/tenants/${t()}/client-invoices/${id}/issue`);
  return id;
});
handWritten.clientInvoiceControllerPdf = [
  { rest: async ({ api }) => (await api.request('GET', `/tenants/${t()}/client-invoices/${await issuedClientInvoice()}/pdf`)).status },
];
handWritten.clientInvoiceControllerEInvoice = [
  {
    rest: async ({ api }) =>
      (await api.request('GET', `/tenants/${t()}/client-invoices/${await issuedClientInvoice()}/e-invoice`, undefined, { query: { format: 'cii' } })).status,
    graphql: async ({ api }) =>
      (
        await api.graphql('query ($t: ID!, $id: ID!) { clientInvoiceEInvoice(tenantId: $t, id: $id, format: cii) { fileName } }', {
          t: t(),
          id: await issuedClientInvoice(),
        })
      ).body,
  },
];

// A reminder's PDF (read in tests/payment-reminders.test.ts): of an invoice 60 days overdue, reminded by the sweep.
const remindedClientInvoice = async (): Promise<string> => {
  const body = { ...clientInvoiceBody(), issueDate: daysAgo(74), dueDate: daysAgo(60) };
  const id = await created(tenant.api.post(`/tenants/${t()}/client-invoices`, body), 'an overdue client invoice');
  await tenant.api.post(`/tenants/${t()}/client-invoices/${id}/issue`);
  await server.workers?.work.paymentReminders.remindOverdue(createLogger('silent'));
  const reminder = await server.app.db.clientInvoiceReminder.findFirstOrThrow({ where: { clientInvoiceId: id } });
  return `/tenants/${t()}/client-invoices/${id}/reminders/${reminder.id}/pdf`;
};
// One reminder that every caller reads (sending one, a write, makes its own: the ClientInvoice fixture).
const readReminder = once(remindedClientInvoice);
handWritten.clientInvoiceControllerReminderPdf = [{ rest: async ({ api }) => (await api.request('GET', await readReminder())).status }];

// A member's month (JSON; the files are read in tests/time-off.test.ts): their own, or the other member's.
handWritten.timesheetControllerFindOne = [false, true].map((own) => ({
  own,
  needsOwner: own,
  rest: async (caller: Caller) => (await caller.api.get(`/tenants/${t()}/users/${own ? caller.tenantUserId : other.id}/timesheets/2027-03`)).status,
  graphql: async (caller: Caller) =>
    (
      await caller.api.graphql('query ($t: ID!, $u: ID!) { timesheet(tenantId: $t, tenantUserId: $u, month: "2027-03") { totals { balanceMinutes } } }', {
        t: t(),
        u: own ? caller.tenantUserId : other.id,
      })
    ).body,
}));

/** Each route's walks, made once: what the callers share (a record they all read) lives in them. */
const walksByRoute = new Map<TenantRoute, Walk[]>();
function walksOf(route: TenantRoute): Walk[] {
  let walks = walksByRoute.get(route);
  if (!walks) {
    walks = route.kind === 'native' ? (handWritten[route.operationId] ?? []) : generatedWalks(route);
    walksByRoute.set(route, walks);
  }
  return walks;
}

/** Whether the role's grant for (action, subject) reaches the walk's record. */
function reaches(role: Role, [action, subject]: TenantRoute['access']['permission'], own: boolean | undefined): boolean {
  const reach = reachOf(role, action, subject);
  if (own === undefined) return reach !== 'none';
  return reach === 'any' || reach === (own ? 'own' : 'others');
}

/** A record the caller cannot read is not found rather than forbidden. */
const hiddenFrom = (role: Role, subject: Subject, own: boolean | undefined): boolean =>
  own !== undefined && !reaches(role, ['read', subject] as TenantRoute['access']['permission'], own);

describe('the permission matrix, walked against the running API', () => {
  it('has a walk for every route that declares a permission, generated or (native rows) written by hand', () => {
    const lacking = permissionRoutes.flatMap((route) => missingFixtures(route).map((what) => `${route.operationId}: ${what}`));
    expect(lacking, 'routes the walk cannot generate').toEqual([]);
    const operationIds = permissionRoutes.map((route) => route.operationId);
    expect(
      Object.keys(handWritten).filter((operationId) => !operationIds.includes(operationId)),
      'hand-written walks without a route',
    ).toEqual([]);
    // Every subject with an owner is walked on own and others' records somewhere.
    const walkedOwners = new Set(
      permissionRoutes.filter((route) => walksOf(route).some((walk) => walk.own === false)).map((route) => route.access.permission[1]),
    );
    const limited = Object.keys(ownership).filter((subject) =>
      permissionRoutes.some((route) => route.access.permission[1] === subject && ownershipMatters(route.access.permission)),
    );
    expect(limited.filter((subject) => !walkedOwners.has(subject as Subject))).toEqual([]);
  });

  it.each(callerNames)('%s: every route answers as the matrix says, over REST and GraphQL', async (name) => {
    const caller = callerNamed(name);
    const answers: string[] = [];
    const wanted: string[] = [];
    for (const route of permissionRoutes) {
      for (const walk of walksOf(route)) {
        // The key owns nothing: its walks on records are on others'.
        if (walk.needsOwner && caller.tenantUserId === null) continue;
        const label = `${route.operationId}${walk.own === undefined ? '' : walk.own ? ' (own)' : ' (others)'}`;
        const outcome: Outcome = reaches(caller.role, route.access.permission, walk.own) ? 'allowed' : 'forbidden';
        const hidden = hiddenFrom(caller.role, route.access.permission[1], walk.own);
        answers.push(`${label} REST ${restOutcome(await walk.rest(caller), hidden)}`);
        wanted.push(`${label} REST ${outcome}`);
        if (walk.graphql) {
          answers.push(`${label} GraphQL ${graphqlOutcome(await walk.graphql(caller), hidden)}`);
          wanted.push(`${label} GraphQL ${outcome}`);
        }
      }
    }
    expect(answers).toEqual(wanted);
    // Every route twice per caller (REST and GraphQL), most on a record made for the walk: longer than one test's default.
  }, 120_000);
});

describe('ownership beyond the routes: search and relation fields', () => {
  it.each(callerNames)("%s finds and reaches exactly the records the matrix lets them read, their own and others'", async (name) => {
    const caller = callerNamed(name);
    const word = `owned${randomBytes(4).toString('hex')}`;
    const projectId = await created(tenant.api.post(`/tenants/${t()}/projects`, { name: `Project ${word}` }), 'a project');
    const records: { subject: Subject; type: string; own: boolean; id: string }[] = [];
    for (const own of caller.tenantUserId === null ? [false] : [false, true]) {
      const owner = own ? caller : null;
      records.push({ subject: 'Entry', type: 'entries', own, id: await entryOf(owner?.tenantUserId ?? other.id, 'draft', { description: word, projectId }) });
      const invoiceApi = owner?.api ?? tenant.api;
      records.push({
        subject: 'Invoice',
        type: 'invoices',
        own,
        id: await created(invoiceApi.post(`/tenants/${t()}/invoices`, { number: word }), 'an invoice'),
      });
    }
    const readable = records.filter((record) => reaches(caller.role, ['read', record.subject] as TenantRoute['access']['permission'], record.own));

    const search = await caller.api.get<{ type: string; id: string }[]>(`/tenants/${t()}/search`, { query: { q: word, types: 'entries,invoices' } });
    expect(search.status).toBe(200);
    expect(search.body.map((hit) => `${hit.type} ${hit.id}`).sort()).toEqual(readable.map((record) => `${record.type} ${record.id}`).sort());

    const relation = await caller.api.graphql<{ project: { entriesConnection: { totalCount: number; edges: { node: { id: string } }[] } } }>(
      'query ($t: ID!, $p: ID!) { project(tenantId: $t, id: $p) { entriesConnection { totalCount edges { node { id } } } } }',
      { t: t(), p: projectId },
    );
    const readableEntries = readable.filter((record) => record.subject === 'Entry').map((record) => record.id);
    expect(relation.body.errors).toBeUndefined();
    expect(relation.body.data?.project.entriesConnection.edges.map((edge) => edge.node.id).sort()).toEqual(readableEntries.sort());
    expect(relation.body.data?.project.entriesConnection.totalCount).toBe(readableEntries.length);
  });
});

describe('fields the matrix guards', () => {
  /** Fields that only holders of a grant read (null for the others), with the value a client is made with. */
  const guarded = [
    { field: 'notes', permission: ['read', 'ClientNotes'], value: 'Pays late' },
    { field: 'hourlyRate', permission: ['read', 'Rate'], value: '95.00' },
  ] as const;

  it.each(callerNames)('%s reads them as the matrix says, over REST and GraphQL, and users/me lists the grants', async (name) => {
    const caller = callerNamed(name);
    const clientId = await created(
      tenant.api.post(`/tenants/${t()}/clients`, { name: uniqueEmail('guarded'), ...Object.fromEntries(guarded.map(({ field, value }) => [field, value])) }),
      'a client',
    );
    const shown = (permission: (typeof guarded)[number]['permission']) => reachOf(caller.role, permission[0], permission[1]) !== 'none';
    const wanted = Object.fromEntries(guarded.map(({ field, permission, value }) => [field, shown(permission) ? value : null]));
    const rest = await caller.api.get<Json>(`/tenants/${t()}/clients/${clientId}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject(wanted);
    const graphql = await caller.api.graphql<{ client: Json }>(
      `query ($t: ID!, $id: ID!) { client(tenantId: $t, id: $id) { ${guarded.map(({ field }) => field).join(' ')} } }`,
      {
        t: t(),
        id: clientId,
      },
    );
    expect(graphql.body.data?.client).toEqual(wanted);
    const me = await caller.api.get<{ permissions: { action: string; subject: string }[] }>(`/tenants/${t()}/users/me`);
    for (const { permission } of guarded) {
      expect(
        me.body.permissions.some((grant) => grant.action === permission[0] && grant.subject === permission[1]),
        `${permission.join(' ')}`,
      ).toBe(shown(permission));
    }
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
