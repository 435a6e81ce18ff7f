/**
 * Every tenant's list must be read through that tenant's index: a list that
 * walks past other tenants' rows gets slower with every row they write. For
 * each list route, over a database where another tenant has ten times as
 * many newer rows, the statement the server actually ran is explained (with
 * ANALYZE) and its plan must touch the table only by an index condition on
 * `tenantId`, removing no row by filter.
 */
import { getNullableType, isListType } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRoutes } from '../src/rest/compile.js';
import { routeTable } from '../src/routes.js';
import { schema } from '../src/schema.js';
import { daysAgo, testClock } from './helpers/clock.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededMember, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const ownRows = 2_000;
const otherRows = 20_000;

interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** The task list the task filler fills, per tenant. */
const fillerList = (tenantId: string): string => `filler-list-${tenantId}`;
/** The project whose members the project-member filler fills, per tenant. */
const fillerProject = (tenantId: string): string => `filler-project-${tenantId}`;
/** The client invoice whose reminders the reminder filler fills, per tenant. */
const fillerInvoice = (tenantId: string): string => `filler-invoice-${tenantId}`;
/** The webhook whose deliveries the delivery filler fills, per tenant. */
const fillerWebhook = (tenantId: string): string => `filler-webhook-${tenantId}`;

interface Filler {
  table: string;
  /** The column the list is scoped by, when it is narrower than the tenant (a member, a webhook). */
  scope?: string;
  /**
   * Unique columns by which the list's statement may also look up single rows of the table (one row for each row
   * listed, whatever other tenants hold): the client invoice that a credit note voided, found by `creditNoteForId`.
   */
  lookups?: string[];
  /** Lists that only a member has (their own notifications): called with the member's session. */
  caller?: 'member';
  /** A list of a period (holidays, busy days): bounded by its dates, not paged; asked with this query. */
  period?: Record<string, string>;
  /** Rows of one tenant, `age` old; `memberId` is a member of that tenant the rows may belong to. */
  fill: (tenantId: string, count: number, age: string, memberId: string) => [string, unknown[]];
}

/** How to fill each listed table with rows of one tenant, `age` old. */
const fillers: Record<string, Filler> = {
  workScheduleControllerFindAll: {
    table: 'work_schedules',
    scope: 'tenantUserId',
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO work_schedules (id, "tenantId", "tenantUserId", "validFrom", minutes, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, date '2000-01-01' + g, '{480,480,480,480,480,0,0}', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  holidayControllerFindAll: {
    table: 'holidays',
    period: { from: '2000-01-01', to: '2004-12-31' },
    fill: (tenantId, count, age) => [
      `INSERT INTO holidays (id, "tenantId", date, name, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, date '2000-01-01' + g, 'Filler ' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  absenceTypeControllerFindAll: {
    table: 'absence_types',
    fill: (tenantId, count, age) => [
      `INSERT INTO absence_types (id, "tenantId", name, kind, "countsAsWork", "deductsVacation", "needsApproval", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler ' || g, 'other', true, false, true, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  absenceControllerFindAll: {
    table: 'absences',
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO absences (id, "tenantId", "tenantUserId", "absenceTypeId", "startDate", "endDate", status, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, (SELECT id FROM absence_types WHERE "tenantId" = $1 AND name = 'Vacation'), date '2000-01-01' + g, date '2000-01-01' + g,
              'pending', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  expenseControllerFindAll: {
    table: 'expenses',
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO expenses (id, "tenantId", "tenantUserId", date, category, description, amount, "netAmount", "taxAmount", currency, "taxRate", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, date '2000-01-01' + g, 'travel', 'Filler', 11.9, 10, 1.9, 'EUR', 19, now() - $3::interval, now()
         FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  absenceControllerFindBusy: {
    table: 'absences',
    period: { from: '2000-01-01', to: '2004-12-31' },
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO absences (id, "tenantId", "tenantUserId", "absenceTypeId", "startDate", "endDate", status, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, (SELECT id FROM absence_types WHERE "tenantId" = $1 AND name = 'Sickness'), date '2000-01-01' + g, date '2000-01-01' + g,
              'approved', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  noteControllerFindAll: {
    table: 'notes',
    fill: (tenantId, count, age) => [
      `INSERT INTO notes (id, "tenantId", content, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'filler', now() - $3::interval, now() FROM generate_series(1, $2::int)`,
      [tenantId, count, age],
    ],
  },
  userControllerFindAll: {
    table: 'tenant_users',
    fill: (tenantId, count, age) => [
      `INSERT INTO tenant_users (id, "tenantId", email, role, status, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'filler-' || g || '-' || $1 || '@example.test', 'member', 'invited', now() - $3::interval, now()
       FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  apiKeyControllerFindAll: {
    table: 'api_keys',
    fill: (tenantId, count, age) => [
      `INSERT INTO api_keys (id, "tenantId", name, prefix, "keyHash", "createdByType", "expiresAt", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'filler', 'svc_fill', md5($1 || g) || md5(g || $1), 'system', now() + interval '1 day', now() - $3::interval, now()
       FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  projectControllerFindAll: {
    table: 'projects',
    fill: (tenantId, count, age) => [
      `INSERT INTO projects (id, "tenantId", name, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler ' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  clientControllerFindAll: {
    table: 'clients',
    fill: (tenantId, count, age) => [
      `INSERT INTO clients (id, "tenantId", name, currency, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler ' || g, 'EUR', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  projectControllerFindMembers: {
    table: 'project_members',
    scope: 'projectId',
    fill: (tenantId, count, age) => [
      `WITH project AS (INSERT INTO projects (id, "tenantId", name, "updatedAt") VALUES ($4, $1, 'Filler project', now()) RETURNING id),
            people AS (
              INSERT INTO tenant_users (id, "tenantId", email, role, status, "updatedAt")
              SELECT uuidv7()::text, $1, 'filler-staff-' || g || '-' || $1 || '@example.test', 'member', 'active', now()
              FROM generate_series(1, $2::int) g RETURNING id
            )
       INSERT INTO project_members (id, "tenantId", "projectId", "tenantUserId", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, project.id, people.id, now() - $3::interval, now() FROM project, people`,
      [tenantId, count, age, fillerProject(tenantId)],
    ],
  },
  taskListControllerFindAll: {
    table: 'task_lists',
    fill: (tenantId, count, age) => [
      `INSERT INTO task_lists (id, "tenantId", name, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler ' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  taskListControllerFindTasks: {
    table: 'tasks',
    fill: (tenantId, count, age) => [
      `WITH list AS (INSERT INTO task_lists (id, "tenantId", name, "updatedAt") VALUES ($4, $1, 'Filler list', now()) RETURNING id)
       INSERT INTO tasks (id, "tenantId", "taskListId", title, position, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, list.id, 'Filler ' || g, g, now() - $3::interval, now() FROM list, generate_series(1, $2::int) g`,
      [tenantId, count, age, fillerList(tenantId)],
    ],
  },
  vehicleControllerFindAll: {
    table: 'vehicles',
    fill: (tenantId, count, age) => [
      `INSERT INTO vehicles (id, "tenantId", name, "licensePlate", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler', 'F ' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  entryControllerFindAll: {
    table: 'entries',
    fill: (tenantId, count, age) => [
      `WITH member AS (
         INSERT INTO tenant_users (id, "tenantId", email, role, status, "updatedAt")
         VALUES (uuidv7()::text, $1, 'filler-entries-' || $1 || '@example.test', 'member', 'active', now()) RETURNING id
       )
       INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", "updatedAt")
       SELECT uuidv7()::text, $1, member.id, now() - $3::interval - g * interval '1 hour', now() - $3::interval - g * interval '1 hour' + interval '30 minutes', 30, now()
       FROM member, generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  // The team's violations of a year: a member's 9-hour days without a break in 2000 (the list is of a period).
  workingTimeControllerFindViolations: {
    table: 'entries',
    period: { from: '2000-01-01', to: '2000-12-31' },
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, timestamptz '2000-01-01 08:00Z' + g * interval '1 day', timestamptz '2000-01-01 17:00Z' + g * interval '1 day', 540,
              now() - $3::interval, now()
         FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  notificationControllerFindAll: {
    table: 'notifications',
    scope: 'tenantUserId',
    caller: 'member',
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO notifications (id, "tenantId", "tenantUserId", type, title, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, 'task.assigned', 'Filler ' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  // A member's own uploads: the narrower of the two invoice lists (managers read the tenant's, as notes do).
  invoiceControllerFindAll: {
    table: 'invoices',
    scope: 'uploadedById',
    caller: 'member',
    fill: (tenantId, count, age, memberId) => [
      `INSERT INTO invoices (id, "tenantId", "uploadedById", number, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $4, 'F-' || g, now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age, memberId],
    ],
  },
  // Client invoices of one client per tenant (the plan of the tenant's list: status and client filters have their own indexes).
  clientInvoiceControllerFindAll: {
    table: 'client_invoices',
    lookups: ['creditNoteForId'],
    fill: (tenantId, count, age) => [
      `WITH client AS (
         INSERT INTO clients (id, "tenantId", name, currency, "createdAt", "updatedAt")
         VALUES (uuidv7()::text, $1, 'Filler client ' || $2::int || $3::text, 'EUR', now(), now()) RETURNING id)
       INSERT INTO client_invoices (id, "tenantId", "clientId", "clientName", currency, "periodFrom", "periodTo", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, client.id, 'Filler client', 'EUR', '2026-01-01', '2026-01-31', now() - $3::interval, now() FROM client, generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  // Recurring invoices of one client per tenant.
  recurringInvoiceControllerFindAll: {
    table: 'recurring_invoices',
    fill: (tenantId, count, age) => [
      `WITH client AS (
         INSERT INTO clients (id, "tenantId", name, currency, "createdAt", "updatedAt")
         VALUES (uuidv7()::text, $1, 'Recurring filler client ' || $2::int || $3::text, 'EUR', now(), now()) RETURNING id)
       INSERT INTO recurring_invoices (id, "tenantId", "clientId", interval, "startDate", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, client.id, 'month', '2030-01-01', now() - $3::interval, now() FROM client, generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  // Reminders of one invoice per tenant, a level each (the list of an invoice's reminders is bounded by its levels).
  clientInvoiceControllerFindReminders: {
    table: 'client_invoice_reminders',
    scope: 'clientInvoiceId',
    fill: (tenantId, count, age) => [
      `WITH client AS (
         INSERT INTO clients (id, "tenantId", name, currency, "createdAt", "updatedAt")
         VALUES (uuidv7()::text, $1, 'Reminded client ' || $2::int || $3::text, 'EUR', now(), now()) RETURNING id
       ), invoice AS (
         INSERT INTO client_invoices (id, "tenantId", "clientId", "clientName", currency, "periodFrom", "periodTo", "updatedAt")
         SELECT $4, $1, client.id, 'Reminded client', 'EUR', '2026-01-01', '2026-01-31', now() FROM client RETURNING id
       )
       INSERT INTO client_invoice_reminders (id, "tenantId", "clientInvoiceId", level, "daysOverdue", "feeAmount", "openAmount", currency, "fileName", content, "createdAt")
       SELECT uuidv7()::text, $1, invoice.id, g, g, 0, 1, 'EUR', 'r.pdf', '\\x'::bytea, now() - $3::interval FROM invoice, generate_series(1, $2::int) g`,
      [tenantId, count, age, fillerInvoice(tenantId)],
    ],
  },
  syncControllerFindAll: {
    table: 'syncs',
    fill: (tenantId, count, age) => [
      `INSERT INTO syncs (id, "tenantId", name, host, port, username, "passwordEncrypted", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Filler ' || g, 'imap.example.com', 993, 'u', 'v1.x.y.z', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  importControllerFindAll: {
    table: 'imports',
    fill: (tenantId, count, age) => [
      `INSERT INTO imports (id, "tenantId", source, timezone, "fileName", "fileSize", "fileSha256", "actorType", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'toggl', 'UTC', 'filler-' || g || '.csv', 1, 'x', 'system', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  webhookControllerFindAll: {
    table: 'webhook_subscriptions',
    fill: (tenantId, count, age) => [
      `INSERT INTO webhook_subscriptions (id, "tenantId", url, events, "secretEncrypted", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'https://example.com/' || g, '{*}', 'v1.x.y.z', now() - $3::interval, now() FROM generate_series(1, $2::int) g`,
      [tenantId, count, age],
    ],
  },
  webhookControllerFindDeliveries: {
    table: 'webhook_deliveries',
    scope: 'subscriptionId',
    fill: (tenantId, count, age) => [
      `WITH hook AS (
         INSERT INTO webhook_subscriptions (id, "tenantId", url, events, "secretEncrypted", "updatedAt")
         VALUES ($4, $1, 'https://example.com/filler', '{*}', 'v1.x.y.z', now()) RETURNING id
       ), happened AS (
         INSERT INTO events (id, "tenantId", type, "actorType", data, "processedAt")
         SELECT uuidv7()::text, $1, 'note.created', 'system', '{}', now() FROM generate_series(1, $2::int) RETURNING id
       )
       INSERT INTO webhook_deliveries (id, "tenantId", "subscriptionId", "eventId", "eventType", status, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, hook.id, happened.id, 'note.created', 'succeeded', now() - $3::interval, now() FROM hook, happened`,
      [tenantId, count, age, fillerWebhook(tenantId)],
    ],
  },
};

/** Every GET row that lists records of one tenant (the `find...` actions returning arrays). */
const listRoutes = compileRoutes(schema, routeTable).filter(
  (route) =>
    route.kind === 'graphql' &&
    route.method === 'GET' &&
    route.action.startsWith('find') &&
    isListType(getNullableType(route.graphqlField.type)) &&
    route.path.startsWith('/tenants/{tenantId}/'),
);

let provider: IdentityProvider;
let server: TestServer;
let database: pg.Client;
let own: SeededTenant;
let other: SeededTenant;
let ownMember: SeededMember;
let otherMember: SeededMember;
const statements: Statement[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  // The API role only: the statements seen are the requests' own, not the workers'.
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' }, onQuery: (sql, params) => statements.push({ sql, params }) });
  database = new pg.Client({ connectionString: server.databaseUrl });
  await database.connect();
  const ownStep = seeder(server, provider).tenant();
  const otherStep = seeder(server, provider).tenant();
  [own, other] = await Promise.all([ownStep, otherStep]);
  ownMember = await ownStep.member('member');
  otherMember = await otherStep.member('member');
  for (const filler of Object.values(fillers)) {
    await database.query(...filler.fill(own.id, ownRows, '1 day', ownMember.id));
    await database.query(...filler.fill(other.id, otherRows, '0 seconds', otherMember.id));
  }
  await database.query('ANALYZE');
}, 120_000);
afterAll(async () => {
  await database?.end();
  await server?.stop();
  await provider?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** What is wrong with how a plan reads `table`: empty when it reads it by the tenant's (or `scope`'s) index alone. */
function tenantScanProblems(plan: PlanNode, table: string, scope = 'tenantId', lookups: readonly string[] = []): string[] {
  const problems: string[] = [];
  let reads = 0;
  // `heap`: the Bitmap Heap Scan a Bitmap Index Scan feeds, directly or through a BitmapOr/BitmapAnd.
  const visit = (node: PlanNode, parent: PlanNode | undefined, heap?: string): void => {
    if ((node['Rows Removed by Filter'] ?? 0) > 0 && (node['Relation Name'] === table || parent?.['Relation Name'] === table)) {
      problems.push(`${node['Node Type']} removed ${node['Rows Removed by Filter']} rows by filter`);
    }
    const bitmapChild = node['Node Type'] === 'Bitmap Index Scan' && heap === table;
    if (node['Relation Name'] === table || bitmapChild) {
      if (node['Node Type'] === 'Bitmap Heap Scan') {
        // judged by its Bitmap Index Scan child
      } else {
        reads += 1;
        if (!/Index/.test(node['Node Type'])) problems.push(`${node['Node Type']} on ${table}`);
        else if (!(node['Index Cond'] ?? '').includes(`"${scope}"`) && !lookups.some((column) => (node['Index Cond'] ?? '').startsWith(`("${column}" = `))) {
          problems.push(`${node['Node Type']} on ${table} without a ${scope} condition`);
        }
      }
    }
    const feeds = node['Node Type'] === 'Bitmap Heap Scan' ? node['Relation Name'] : /^Bitmap(Or|And)$/.test(node['Node Type']) ? heap : undefined;
    for (const child of node.Plans ?? []) visit(child, node, feeds);
  };
  visit(plan, undefined);
  if (reads === 0) problems.push(`the plan does not read ${table}`);
  return problems;
}

async function explain(statement: Statement): Promise<PlanNode> {
  const { rows } = await database.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [...statement.params]);
  return (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
}

describe('the plan of every tenant list', () => {
  it('has a filler for every list route', () => {
    expect(listRoutes.map((route) => route.operationId).filter((operationId) => !fillers[operationId])).toEqual([]);
  });

  it('would catch a list that walks other tenants\u2019 rows (the check itself can fail)', async () => {
    const plan = await explain({ sql: 'SELECT * FROM notes WHERE "tenantId" = $1 ORDER BY id DESC LIMIT 50', params: [own.id] });
    expect(tenantScanProblems(plan, 'notes')).not.toEqual([]);
  });

  it.each(listRoutes.map((route) => [route.operationId, route] as const))('%s reads only its tenant\u2019s rows, by index', async (operationId, route) => {
    const filler = fillers[operationId];
    if (!filler) throw new Error(`no filler for ${operationId}`);
    statements.length = 0;
    const path = route.path
      .replace('{tenantId}', own.id)
      .replace('{taskListId}', fillerList(own.id))
      .replace('{webhookId}', fillerWebhook(own.id))
      .replace('{clientInvoiceId}', fillerInvoice(own.id))
      .replace('{projectId}', fillerProject(own.id))
      .replace('{tenantUserId}', ownMember.id);
    const response = await (filler.caller === 'member' ? ownMember : own).api.get(path, { query: filler.period ?? { limit: 50 } });
    expect(response.status).toBe(200);
    if (!filler.period) expect((response.body as unknown as unknown[]).length).toBe(50);
    // Prisma quotes the table ("public"."notes"); plain reads through `sql` may not.
    const table = new RegExp(`(?:"${filler.table}"|\\b${filler.table}\\b)`);
    const list = statements.find((statement) => table.test(statement.sql) && (filler.period !== undefined || /\bLIMIT\b/.test(statement.sql)));
    expect(list, `the statement that lists ${filler.table}`).toBeDefined();
    const plan = await explain(list as Statement);
    expect(tenantScanProblems(plan, filler.table, filler.scope, filler.lookups), JSON.stringify(plan)).toEqual([]);
  });

  it("reads what a page of projects has spent by the entries' project index, whatever other projects and tenants hold", async () => {
    // Entries on the filler project of each tenant (the other's ten times as many), in the hours up to now by the clock
    // the server runs on: the monthly budget's current month holds some of them.
    for (const [tenant, count] of [
      [own, ownRows],
      [other, otherRows],
    ] as const) {
      await database.query(
        `UPDATE projects SET "budgetHours" = 100, "budgetPeriod" = CASE WHEN $2 THEN 'monthly'::"BudgetPeriod" ELSE 'total'::"BudgetPeriod" END WHERE id = $1`,
        [fillerProject(tenant.id), tenant === own],
      );
      await database.query(
        `INSERT INTO entries (id, "tenantId", "tenantUserId", "projectId", "startedAt", "endedAt", "durationMinutes", "billableAmount", "updatedAt")
         SELECT uuidv7()::text, $1, (SELECT id FROM tenant_users WHERE "tenantId" = $1 LIMIT 1), $2,
                $4::timestamptz - g * interval '1 hour', $4::timestamptz - g * interval '1 hour' + interval '30 minutes', 30, 10, now()
         FROM generate_series(1, $3::int) g`,
        [tenant.id, fillerProject(tenant.id), count, testClock.now()],
      );
    }
    await database.query('ANALYZE entries');
    statements.length = 0;
    const response = await own.api.get<{ id: string; spentMinutes: number }[]>(`/tenants/${own.id}/projects`, { query: { limit: 50 } });
    expect(response.status).toBe(200);
    const spent = statements.find((statement) => statement.sql.includes('sum(e."durationMinutes")'));
    expect(spent, 'the statement that sums what projects spent').toBeDefined();
    const plan = await explain(spent as Statement);
    // By the project index; or, early in a month, when the monthly budget's days hold few of the entries, by the
    // tenant's index on their start: both are bounded by what this tenant holds, never by the other tenant's rows.
    const byProject = tenantScanProblems(plan, 'entries', 'projectId');
    expect(byProject.length === 0 ? byProject : tenantScanProblems(plan, 'entries', 'tenantId'), JSON.stringify(plan)).toEqual([]);
  });

  it("reads a summary from the tenant's week and day totals by index, and a member's from their own entries", async () => {
    // The entries of the test above, in both tenants, are in their day and week totals too.
    await database.query('ANALYZE entry_day_totals');
    await database.query('ANALYZE entry_week_totals');
    const summaryOf = async (caller: { api: SeededTenant['api'] }, groupBy: string, subGroupBy: string, table: string) => {
      statements.length = 0;
      const query = { from: daysAgo(4 * 365), to: daysAgo(0), groupBy, subGroupBy };
      expect((await caller.api.get(`/tenants/${own.id}/reports/summary`, { query })).status).toBe(200);
      const read = statements.filter((statement) => new RegExp(`FROM ${table}\\b`).test(statement.sql));
      // One statement: groups and totals are added up from the sub-groups.
      expect(read, `the summary's statement over ${table}`).toHaveLength(1);
      return read[0] as Statement;
    };
    // By week: whole weeks from the week totals, the days at the ends from the day totals.
    const byWeek = await explain(await summaryOf(own, 'project', 'week', 'entry_week_totals'));
    expect(tenantScanProblems(byWeek, 'entry_week_totals')).toEqual([]);
    expect(tenantScanProblems(byWeek, 'entry_day_totals')).toEqual([]);
    // By day: the day totals alone.
    expect(tenantScanProblems(await explain(await summaryOf(own, 'project', 'day', 'entry_day_totals')), 'entry_day_totals')).toEqual([]);
    // By member: whole weeks from the member totals, the days at the ends from their day rows, each by index; no entry
    // read. By day: the day rows alone.
    await database.query('ANALYZE entry_dimension_week_totals');
    await database.query('ANALYZE entry_dimension_day_totals');
    const byMember = await explain(await summaryOf(own, 'user', 'week', 'entry_dimension_week_totals'));
    expect(tenantScanProblems(byMember, 'entry_dimension_week_totals')).toEqual([]);
    expect(tenantScanProblems(byMember, 'entry_dimension_day_totals')).toEqual([]);
    expect(tenantScanProblems(byMember, 'entries')).toEqual(['the plan does not read entries']);
    const byMemberAndDay = await explain(await summaryOf(own, 'user', 'day', 'entry_dimension_day_totals'));
    expect(tenantScanProblems(byMemberAndDay, 'entry_dimension_day_totals')).toEqual([]);
    expect(tenantScanProblems(await explain(await summaryOf(ownMember, 'project', 'week', 'entries')), 'entries')).toEqual([]);
  });

  it("reads the change feed and an entry's history by the tenant's index, past other tenants' newer events", async () => {
    const fill = (tenantId: string, count: number, age: string) =>
      database.query(
        `INSERT INTO events (id, "tenantId", type, "actorType", "subjectId", data, "createdAt")
         SELECT uuidv7()::text, $1, 'entry.updated', 'system', 'history-' || $1, '{}', now() - $3::interval FROM generate_series(1, $2::int)`,
        [tenantId, count, age],
      );
    await fill(own.id, ownRows, '1 day');
    await fill(other.id, otherRows, '0 seconds');
    await database.query('ANALYZE events');
    const readThrough = async (path: string, query: Record<string, string | number>) => {
      statements.length = 0;
      const response = await own.api.get(path, { query });
      expect(response.status, response.text).toBe(200);
      expect((response.body as unknown as unknown[]).length).toBe(50);
      const read = statements.filter((statement) => statement.sql.includes('FROM events e'));
      expect(read).toHaveLength(1);
      return tenantScanProblems(await explain(read[0] as Statement), 'events');
    };
    const firstPage = await own.api.get<{ id: string }[]>(`/tenants/${own.id}/events`, { query: { limit: 1000 } });
    const cursor = firstPage.body.at(500)?.id ?? '';
    expect(await readThrough(`/tenants/${own.id}/events`, { limit: 50, after: cursor })).toEqual([]);
    expect(await readThrough(`/tenants/${own.id}/entries/history-${own.id}/history`, { limit: 50, offset: 100 })).toEqual([]);
  });

  it('reads a Relay connection the same way', async () => {
    statements.length = 0;
    const response = await own.api.graphql('query ($t: ID!) { notesConnection(tenantId: $t, first: 20) { edges { node { id } } } }', { t: own.id });
    expect(response.body.errors).toBeUndefined();
    const list = statements.find((statement) => statement.sql.includes('"notes"') && /\bLIMIT\b/.test(statement.sql));
    expect(tenantScanProblems(await explain(list as Statement), 'notes')).toEqual([]);
  });
});
