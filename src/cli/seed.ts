/**
 * `tally seed --tenants N --users N --entries N`: a database full of
 * plausible work, for trying Tally out and for benchmarks. Tenants and their
 * API keys go through the services; the bulk (members, projects, tasks,
 * vehicles, entries over the last two years) is inserted in batches of plain
 * SQL, thousands of rows per statement, so that 100,000 entries take seconds.
 * An entry's values (minutes, rates, amounts) are entry.values.ts's, as for
 * every other writer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import cliProgress from 'cli-progress';
import { systemActor } from '../auth/actor.js';
import { systemAccess } from '../auth/tenant-access.js';
import type { Sql, SqlClient } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import { Prisma } from '../generated/prisma/client.js';
import type { EntryStatus } from '../generated/prisma/enums.js';
import {
  amountsOf,
  copiedRates,
  durationMinutes,
  entryDescription,
  entryTags,
  spanProblem,
  type CopiedRates,
  type RateSources,
} from '../modules/tracking/entry/entry.values.js';
import { seedClientInvoices } from '../modules/billing/client-invoice/client-invoice.seed.js';
import type { Services } from '../modules/services.js';
import { settingsOf, type TenantSettings } from '../modules/platform/tenant/tenant.settings.js';

export interface SeedOptions {
  tenants: number;
  /** Members per tenant. */
  users: number;
  /** Entries in all, spread over the tenants. */
  entries: number;
  /** Show a progress bar (off when the output is not a terminal). */
  progress: boolean;
}

export interface SeededTenantSummary {
  id: string;
  slug: string;
  key: string;
  entries: number;
}

const batchSize = 5000;
const dayMs = 24 * 60 * 60 * 1000;

/** Appends one row to column arrays (what `unnest` takes), a value to each column. */
function appendRow(columns: unknown[][], row: readonly unknown[]): void {
  if (row.length !== columns.length) throw new Error(`a row of ${row.length} values for ${columns.length} columns`);
  for (const [column, values] of columns.entries()) values.push(row[column]);
}

const firstNames = [
  'Ada',
  'Ben',
  'Chloe',
  'David',
  'Elif',
  'Femi',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Kira',
  'Liam',
  'Mara',
  'Noah',
  'Olga',
  'Paul',
  'Rosa',
  'Sami',
  'Tara',
  'Umar',
  'Vera',
  'Wim',
  'Yara',
  'Zoe',
];
const lastNames = [
  'Adler',
  'Berg',
  'Costa',
  'Dahl',
  'Engel',
  'Fox',
  'Gruber',
  'Hahn',
  'Ito',
  'Jansen',
  'Klein',
  'Lind',
  'Moreau',
  'Novak',
  'Olsen',
  'Price',
  'Quinn',
  'Roth',
  'Stein',
  'Torres',
  'Ulrich',
  'Vogel',
  'Weber',
  'Young',
];
const clients = ['ACME', 'Globex', 'Initech', 'Umbrella', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Soylent', 'Tyrell', 'Cyberdyne'];
const projectKinds = [
  'Website relaunch',
  'Mobile app',
  'Data migration',
  'Brand refresh',
  'Support retainer',
  'Security audit',
  'Shop integration',
  'Reporting',
  'Onboarding',
  'Infrastructure',
];
const verbs = [
  'Reviewed',
  'Implemented',
  'Discussed',
  'Fixed',
  'Designed',
  'Tested',
  'Documented',
  'Planned',
  'Deployed',
  'Refactored',
  'Prepared',
  'Analysed',
];
const objects = [
  'the checkout flow',
  'invoice export',
  'login page',
  'search results',
  'API pagination',
  'the weekly report',
  'database indexes',
  'onboarding emails',
  'the style guide',
  'release notes',
  'customer feedback',
  'the sprint backlog',
  'payment webhooks',
  'timesheet approval',
];
const contexts = [
  'with the client',
  'in the team meeting',
  'after the standup',
  'for the next release',
  'on site',
  'remotely',
  'before the deadline',
  'with design',
  'in a workshop',
  '',
];
const tagWords = ['meeting', 'development', 'design', 'support', 'travel', 'review', 'planning', 'testing', 'ops', 'research'];
const rejectionReasons = ['Please add the project', 'Wrong day', 'Break missing', 'Split this into two entries', 'Which task was this?'];
const makes = [
  ['Volkswagen', 'Transporter', 'diesel'],
  ['Renault', 'Zoe', 'electric'],
  ['Ford', 'Transit', 'diesel'],
  ['Tesla', 'Model 3', 'electric'],
  ['Toyota', 'Corolla', 'hybrid'],
];

/** A seeded generator, so that the same numbers give the same data. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** UUIDv7 for a given time: ids that sort like the rows' creation, as the application's do. */
function uuidv7At(time: number, random: () => number): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(Math.max(0, Math.floor(time)), 0, 6);
  for (let index = 6; index < 16; index += 1) bytes[index] = Math.floor(random() * 256);
  bytes[6] = (bytes.readUInt8(6) & 0x0f) | 0x70;
  bytes[8] = (bytes.readUInt8(8) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Member {
  id: string;
  rate: string;
  costRate: string;
}

interface ProjectRow {
  id: string;
  /** The rates that may apply to each member working on it: project member, project, client, member (entry.values.ts picks). */
  rateSourcesOf(member: Member): RateSources;
  tasks: string[];
}

const decimalOrNull = (value: string | null): Prisma.Decimal | null => (value === null ? null : new Prisma.Decimal(value));

/** The rates of a member's entry on no project: their own. */
const memberSources = (member: Member): RateSources => ({
  memberRate: null,
  projectRate: null,
  clientRate: null,
  ownRate: new Prisma.Decimal(member.rate),
  costRate: new Prisma.Decimal(member.costRate),
  currency: null,
});

/** One entry as the seed makes it up; what is derived from it (minutes, rates, amounts) is entry.values.ts's. */
export interface SeedEntry {
  id: string;
  tenantUserId: string;
  projectId: string | null;
  taskId: string | null;
  vehicleId: string | null;
  distanceKm: string | null;
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
  description: string;
  billable: boolean;
  tags: string[];
  /** The rates that may apply; one object per (member, project) pair, so that the choice is made once per pair. */
  rateSources: RateSources;
  status: EntryStatus;
  submittedAt: Date | null;
  reviewedById: string | null;
  reviewedAt: Date | null;
  rejectionReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const entryColumns: [string, string][] = [
  ['id', 'text'],
  ['tenantId', 'text'],
  ['tenantUserId', 'text'],
  ['projectId', 'text'],
  ['taskId', 'text'],
  ['vehicleId', 'text'],
  ['distanceKm', 'numeric'],
  ['startedAt', 'timestamptz'],
  ['endedAt', 'timestamptz'],
  ['breakMinutes', 'int'],
  ['durationMinutes', 'int'],
  ['description', 'text'],
  ['billable', 'boolean'],
  ['tags', 'text'],
  ['hourlyRate', 'numeric'],
  ['costRate', 'numeric'],
  ['billableAmount', 'numeric'],
  ['costAmount', 'numeric'],
  ['currency', 'text'],
  ['status', 'text'],
  ['submittedAt', 'timestamptz'],
  ['reviewedById', 'text'],
  ['reviewedAt', 'timestamptz'],
  ['rejectionReason', 'text'],
  ['createdAt', 'timestamptz'],
  ['updatedAt', 'timestamptz'],
];

/** A PostgreSQL array literal of texts, each quoted. */
const arrayLiteral = (items: readonly string[]): string => `{${items.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
const iso = (instant: Date | null): string | null => (instant === null ? null : instant.toISOString());
const text = (value: Prisma.Decimal | null): string | null => (value === null ? null : value.toString());

/**
 * Writes a tenant's entries in one statement, their minutes, rates and
 * amounts computed by entry.values.ts with the tenant's settings (the seed's
 * own entries, and the property test's: test/entry-values.test.ts). An entry
 * the rules refuse (zero length, a break as long as the entry) is an error:
 * the seed makes none.
 */
export async function writeSeedEntries(
  sql: SqlClient,
  tenant: { id: string; settings: Pick<TenantSettings, 'roundingMinutes' | 'defaultHourlyRate' | 'currency'> },
  entries: readonly SeedEntry[],
): Promise<void> {
  const chosen = new Map<RateSources, CopiedRates>();
  // The seed repeats a few lengths at a few rates: each (rates, minutes, billable) is priced once, by the same rule.
  const priced = new Map<CopiedRates, Map<number, ReturnType<typeof amountsOf>>>();
  const values: unknown[][] = entryColumns.map(() => []);
  for (const entry of entries) {
    const problem = spanProblem(entry.startedAt, entry.endedAt, entry.breakMinutes);
    if (problem) throw new Error(`seed: entry ${entry.id} is no entry: ${problem.path} ${problem.message}`);
    let rates = chosen.get(entry.rateSources);
    if (rates === undefined) {
      rates = copiedRates(entry.rateSources, tenant.settings);
      chosen.set(entry.rateSources, rates);
      priced.set(rates, new Map());
    }
    const minutes = durationMinutes(entry.startedAt, entry.endedAt, entry.breakMinutes, tenant.settings.roundingMinutes);
    const prices = priced.get(rates) as Map<number, ReturnType<typeof amountsOf>>;
    const key = entry.billable ? minutes : -1 - minutes;
    let amounts = prices.get(key);
    if (amounts === undefined) {
      amounts = amountsOf({ durationMinutes: minutes, billable: entry.billable, ...rates });
      prices.set(key, amounts);
    }
    const derived = { durationMinutes: minutes, ...rates, ...amounts };
    appendRow(values, [
      entry.id,
      tenant.id,
      entry.tenantUserId,
      entry.projectId,
      entry.taskId,
      entry.vehicleId,
      entry.distanceKm,
      entry.startedAt.toISOString(),
      entry.endedAt.toISOString(),
      entry.breakMinutes,
      derived.durationMinutes,
      entryDescription(entry.description),
      entry.billable,
      arrayLiteral(entryTags(entry.tags)),
      text(derived.hourlyRate),
      text(derived.costRate),
      text(derived.billableAmount),
      text(derived.costAmount),
      derived.currency,
      entry.status,
      iso(entry.submittedAt),
      entry.reviewedById,
      iso(entry.reviewedAt),
      entry.rejectionReason,
      entry.createdAt.toISOString(),
      entry.updatedAt.toISOString(),
    ]);
  }
  await sql.query(
    `INSERT INTO entries (${entryColumns.map(([name]) => `"${name}"`).join(', ')})
     SELECT id, "tenantId", "tenantUserId", "projectId", "taskId", "vehicleId", "distanceKm", "startedAt", "endedAt", "breakMinutes",
            "durationMinutes", description, billable, tags::text[], "hourlyRate", "costRate", "billableAmount", "costAmount", currency,
            status::"EntryStatus", "submittedAt", "reviewedById",
            "reviewedAt", "rejectionReason", "createdAt", "updatedAt"
       FROM unnest(${entryColumns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
         AS e(${entryColumns.map(([name]) => `"${name}"`).join(', ')})`,
    values,
  );
}

/** Inserts rows given column by column, `columns` naming each column and its SQL type. */
async function insertColumns(sql: Sql, table: string, columns: [name: string, type: string][], values: unknown[][]): Promise<void> {
  const list = columns.map(([name]) => `"${name}"`).join(', ');
  const unnest = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  await sql.query(`INSERT INTO ${table} (${list}) SELECT * FROM unnest(${unnest})`, values);
}

/** Fills the database, dated back from the clock's now; returns each tenant with an admin API key (shown once, by the CLI). */
export async function seed(services: Services, sql: Sql, clock: Clock, options: SeedOptions): Promise<SeededTenantSummary[]> {
  const random = randomSource(options.tenants * 7919 + options.users * 104729 + options.entries);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const bar = options.progress
    ? new cliProgress.SingleBar(
        { format: 'seeding |{bar}| {value}/{total} entries | {eta_formatted} left', hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(options.entries, 0);
  const run = randomBytes(3).toString('hex');
  const summaries: SeededTenantSummary[] = [];
  const instant = clock.now();
  const now = instant.getTime();
  const actor = systemActor('seed');

  for (let tenantIndex = 0; tenantIndex < options.tenants; tenantIndex += 1) {
    const tenant = await services.tenants.create(actor, {
      name: `${pick(clients)} Consulting ${tenantIndex + 1}`,
      slug: `seed-${run}-${tenantIndex + 1}`,
      settings: { defaultHourlyRate: '75', holidayRegion: 'DE-BY' },
    });
    const currency = 'EUR';
    // The tenant's today, for the dates of its time off.
    const today = clock.today(settingsOf(tenant).timezone);
    const { key } = await services.apiKeys.create(systemAccess(tenant, actor), { name: 'seed', expiresInDays: 90 });

    // Members, each with a user account, as if they had signed in.
    const members: Member[] = [];
    const userRows: unknown[][] = [[], [], [], []];
    const memberRows: unknown[][] = [[], [], [], [], [], [], [], [], []];
    for (let index = 0; index < options.users; index += 1) {
      const name = `${pick(firstNames)} ${pick(lastNames)}`;
      const email = `${name.toLowerCase().replace(' ', '.')}.${run}${tenantIndex}${index}@seed.example`;
      const userId = randomUUID();
      const rate = 60 + Math.floor(random() * 60);
      const member = { id: uuidv7At(now - 800 * dayMs, random), rate: rate.toFixed(2), costRate: (rate * (0.45 + random() * 0.2)).toFixed(2) };
      members.push(member);
      appendRow(userRows, [userId, name, email, true]);
      const role = index === 0 ? 'owner' : index < 3 ? 'manager' : 'member';
      appendRow(memberRows, [member.id, tenant.id, userId, email, name, role, 'active', member.rate, member.costRate]);
    }
    await insertColumns(
      sql,
      'users',
      [
        ['id', 'text'],
        ['name', 'text'],
        ['email', 'text'],
        ['emailVerified', 'boolean'],
      ],
      userRows,
    );
    await sql.query(
      `INSERT INTO tenant_users (id, "tenantId", "userId", email, name, role, status, "hourlyRate", "costRate", "createdAt", "updatedAt")
       SELECT id, "tenantId", "userId", email, name, role::"TenantRole", status::"TenantUserStatus", "hourlyRate", "costRate",
              $10::timestamptz - interval '800 days', $10::timestamptz
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::numeric[])
           AS m(id, "tenantId", "userId", email, name, role, status, "hourlyRate", "costRate")`,
      [...memberRows, instant],
    );
    // Time off: every fourth member part time (4 x 6 h) from 400 days ago, a vacation allowance of this year and last,
    // a week's vacation and a sick day behind them, and a request ahead waiting for approval.
    const partTime = members.filter((_member, index) => index % 4 === 3).map((member) => member.id);
    await sql.query(
      `INSERT INTO work_schedules (id, "tenantId", "tenantUserId", "validFrom", minutes, "updatedAt")
       SELECT uuidv7()::text, $1, m, $3::date - 400, '{360,360,360,360,0,0,0}', $4::timestamptz FROM unnest($2::text[]) m`,
      [tenant.id, partTime, today, instant],
    );
    const memberIds = members.map((member) => member.id);
    await sql.query(
      `INSERT INTO vacation_allowances (id, "tenantId", "tenantUserId", year, "allowanceDays", "updatedAt")
       SELECT uuidv7()::text, $1, m, y, 30, $4::timestamptz FROM unnest($2::text[]) m, (VALUES ($3::int - 1), ($3::int)) AS years(y)`,
      [tenant.id, memberIds, Number(today.slice(0, 4)), instant],
    );
    await sql.query(
      `INSERT INTO absences (id, "tenantId", "tenantUserId", "absenceTypeId", "startDate", "endDate", status, "reviewedAt", "updatedAt")
       SELECT uuidv7()::text, $1, m, t.id, $3::date + a.first, $3::date + a.last, a.status::"AbsenceStatus",
              CASE WHEN a.status = 'approved' THEN $4::timestamptz END, $4::timestamptz
         FROM unnest($2::text[]) m
        CROSS JOIN (VALUES ('Vacation', -120, -116, 'approved'), ('Sickness', -60, -60, 'approved'), ('Vacation', 30, 34, 'pending'))
              AS a(type, first, last, status)
         JOIN absence_types t ON t."tenantId" = $1 AND t.name = a.type`,
      [tenant.id, memberIds, today, instant],
    );

    // Clients, some with a rate of their own; projects for them, with budgets, task lists and tasks, and
    // project members at project rates; vehicles.
    const tenantClients = clients.slice(0, 3 + (tenantIndex % 3)).map((name, index) => ({
      id: uuidv7At(now - 770 * dayMs + index, random),
      name,
      rate: random() < 0.5 ? (90 + Math.floor(random() * 60)).toFixed(2) : null,
    }));
    // With a billing address: issuing an invoice asks for it (the buyer of every e-invoice has one).
    for (const [index, client] of tenantClients.entries()) {
      const billingAddress = { line1: `Marktplatz ${index + 1}`, postcode: '80331', city: 'München', countryCode: 'DE' };
      await sql.query(
        `INSERT INTO clients (id, "tenantId", name, currency, "hourlyRate", "billingAddress", "createdAt", "updatedAt")
         VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz - interval '770 days', $7::timestamptz)`,
        [client.id, tenant.id, client.name, currency, client.rate, JSON.stringify(billingAddress), instant],
      );
    }
    const projects: ProjectRow[] = [];
    const projectCount = Math.max(3, Math.ceil(options.users / 2));
    for (let index = 0; index < projectCount; index += 1) {
      const id = uuidv7At(now - 760 * dayMs + index * 1000, random);
      const rate = random() < 0.7 ? (80 + Math.floor(random() * 80)).toFixed(2) : null;
      const client = pick(tenantClients);
      const monthly = index % 3 === 1;
      await sql.query(
        `INSERT INTO projects (id, "tenantId", name, code, "clientId", "hourlyRate", "budgetHours", "budgetAmount", "budgetPeriod", billable, status,
                               "createdAt", "updatedAt")
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::"BudgetPeriod", $10, $11::"ProjectStatus", $12::timestamptz - interval '760 days', $12::timestamptz)`,
        [
          id,
          tenant.id,
          `${pick(projectKinds)} for ${client.name}`,
          `P${tenantIndex + 1}-${index + 1}`,
          client.id,
          rate,
          monthly ? 80 + index * 4 : 100 + index * 20,
          index % 2 === 0 ? (monthly ? 8_000 : 20_000 + index * 1_000).toFixed(2) : null,
          monthly ? 'monthly' : 'total',
          random() < 0.85,
          index % 7 === 6 ? 'archived' : 'active',
          instant,
        ],
      );
      // Some members work on it at a rate of their own.
      const staffed = new Map<string, string | null>();
      for (const member of members) {
        if (random() < 0.3) staffed.set(member.id, random() < 0.6 ? (100 + Math.floor(random() * 60)).toFixed(2) : null);
      }
      for (const [memberId, memberRate] of staffed) {
        await sql.query(
          `INSERT INTO project_members (id, "tenantId", "projectId", "tenantUserId", "hourlyRate", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6)`,
          [uuidv7At(now - 755 * dayMs, random), tenant.id, id, memberId, memberRate, instant],
        );
      }
      const tasks: string[] = [];
      const listId = uuidv7At(now - 750 * dayMs + index, random);
      await sql.query(`INSERT INTO task_lists (id, "tenantId", "projectId", name, "updatedAt") VALUES ($1, $2, $3, 'Backlog', $4)`, [
        listId,
        tenant.id,
        id,
        instant,
      ]);
      for (let taskIndex = 0; taskIndex < 5; taskIndex += 1) {
        const taskId = uuidv7At(now - 740 * dayMs + taskIndex, random);
        const status = pick(['open', 'in_progress', 'done'] as const);
        await sql.query(
          `INSERT INTO tasks (id, "tenantId", "taskListId", title, status, "assigneeId", position, "completedAt", "updatedAt")
           VALUES ($1, $2, $3, $4, $5::"TaskStatus", $6, $7, $8, $9)`,
          [
            taskId,
            tenant.id,
            listId,
            `${pick(verbs)} ${pick(objects)}`,
            status,
            pick(members).id,
            taskIndex,
            status === 'done' ? new Date(now - random() * 300 * dayMs) : null,
            instant,
          ],
        );
        tasks.push(taskId);
      }
      projects.push({
        id,
        rateSourcesOf: (member) => ({
          ...memberSources(member),
          memberRate: decimalOrNull(staffed.get(member.id) ?? null),
          projectRate: decimalOrNull(rate),
          clientRate: decimalOrNull(client.rate),
          currency,
        }),
        tasks,
      });
    }
    const vehicles: string[] = [];
    for (let index = 0; index < Math.max(1, Math.ceil(options.users / 5)); index += 1) {
      const [make, model, fuel] = pick(makes) as [string, string, string];
      const id = uuidv7At(now - 730 * dayMs + index, random);
      await sql.query(
        `INSERT INTO vehicles (id, "tenantId", name, "licensePlate", make, model, "fuelType", "odometerKm", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          id,
          tenant.id,
          `${model} ${index + 1}`,
          `S ${run.toUpperCase()} ${tenantIndex}${index}`,
          make,
          model,
          fuel,
          10_000 + Math.floor(random() * 90_000),
          instant,
        ],
      );
      vehicles.push(id);
    }

    // Entries: weekdays over the last two years, older ones approved, recent ones in every state of the
    // approval step (tenants require it by default): drafts, submitted, approved and rejected with a reason,
    // reviewed by a manager (the owner reviews the managers' own).
    const reviewers = members.slice(1, 3).length > 0 ? members.slice(1, 3) : members.slice(0, 1);
    const share = Math.floor(options.entries / options.tenants) + (tenantIndex < options.entries % options.tenants ? 1 : 0);
    const settings = settingsOf(tenant);
    // One sources object per (member, project) pair: the writer chooses a pair's rates once.
    const ownSources = new Map(members.map((member) => [member, memberSources(member)] as const));
    const pairSources = new Map<string, RateSources>();
    const sourcesOf = (member: Member, project: ProjectRow | null): RateSources => {
      if (!project) return ownSources.get(member) as RateSources;
      const key = `${member.id} ${project.id}`;
      let sources = pairSources.get(key);
      if (sources === undefined) {
        sources = project.rateSourcesOf(member);
        pairSources.set(key, sources);
      }
      return sources;
    };
    for (let done = 0; done < share; done += batchSize) {
      const count = Math.min(batchSize, share - done);
      const batch: SeedEntry[] = [];
      for (let index = 0; index < count; index += 1) {
        const member = pick(members);
        let day = now - Math.floor(random() * 730) * dayMs;
        const weekday = new Date(day).getUTCDay();
        if (weekday === 0 || weekday === 6) day -= (weekday === 0 ? 2 : 1) * dayMs;
        const date = new Date(day);
        const startedAt = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), 7 + Math.floor(random() * 4), Math.floor(random() * 4) * 15);
        const minutes = 30 + Math.floor(random() * 16) * 15;
        const breakMinutes = minutes > 180 && random() < 0.5 ? 30 : 0;
        const project = random() < 0.85 ? pick(projects) : null;
        const vehicle = random() < 0.1 ? pick(vehicles) : null;
        const age = now - startedAt;
        const status = age > 45 * dayMs ? 'approved' : pick(['draft', 'draft', 'submitted', 'approved', 'rejected'] as const);
        const tags = [pick(tagWords), ...(random() < 0.3 ? [pick(tagWords)] : [])];
        const reviewed = status === 'approved' || status === 'rejected';
        const reviewer = reviewers.find((candidate) => candidate !== member) ?? (members[0] as Member);
        const billable = random() < 0.8;
        batch.push({
          id: uuidv7At(startedAt, random),
          tenantUserId: member.id,
          projectId: project?.id ?? null,
          taskId: project && random() < 0.4 ? pick(project.tasks) : null,
          vehicleId: vehicle,
          distanceKm: vehicle ? (5 + Math.floor(random() * 200)).toFixed(1) : null,
          startedAt: new Date(startedAt),
          endedAt: new Date(startedAt + minutes * 60_000),
          breakMinutes,
          description: `${pick(verbs)} ${pick(objects)} ${pick(contexts)}`.trim(),
          billable,
          tags,
          rateSources: sourcesOf(member, project),
          status,
          submittedAt: status === 'draft' ? null : new Date(startedAt + dayMs),
          reviewedById: reviewed ? reviewer.id : null,
          reviewedAt: reviewed ? new Date(startedAt + 2 * dayMs) : null,
          rejectionReason: status === 'rejected' ? pick(rejectionReasons) : null,
          createdAt: new Date(startedAt + minutes * 60_000),
          updatedAt: new Date(startedAt + 2 * dayMs),
        });
      }
      await writeSeedEntries(sql, { id: tenant.id, settings }, batch);
      bar?.increment(count);
    }
    await seedClientInvoices(
      services,
      systemAccess(tenant, actor),
      tenant.name,
      tenantClients.map((client) => client.id),
      instant,
    );
    summaries.push({ id: tenant.id, slug: tenant.slug, key, entries: share });
  }
  bar?.stop();
  await sql.query('ANALYZE');
  return summaries;
}
