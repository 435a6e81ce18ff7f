/**
 * The seed's entries: weekdays over the last two years, older ones approved, recent ones in every state of the
 * approval step (tenants require it by default): drafts, submitted, approved and rejected with a reason, reviewed
 * by a manager (the owner reviews the managers' own). Written in batches of one statement each; an entry's
 * values (minutes, rates, amounts) are entry.values.ts's, as for every other writer.
 */
import type { SqlClient } from '../../db/client.js';
import type { EntryStatus } from '../../generated/prisma/enums.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { TenantSettings } from '../../modules/platform/tenant/tenant.settings.js';
import {
  amountsOf,
  copiedRates,
  durationMinutes,
  entryDescription,
  entryTags,
  spanProblem,
  type CopiedRates,
  type RateSources,
} from '../../modules/tracking/entry/entry.values.js';
import { appendRow, dayMs, type TenantSeed, uuidv7At } from './context.js';
import type { Member } from './platform.js';
import { memberSources, type ProjectRow } from './tracking.js';
import { contexts, objects, rejectionReasons, tagWords, verbs } from './words.js';

const batchSize = 5000;

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

/**
 * `share` entries of `members`, on `projects` (or none) and now and then with a vehicle, written batch by batch;
 * `progress` hears of each batch written.
 */
export async function seedEntries(
  seed: TenantSeed,
  {
    members,
    projects,
    vehicles,
    share,
    settings,
    progress,
  }: {
    members: readonly Member[];
    projects: readonly ProjectRow[];
    vehicles: readonly string[];
    share: number;
    settings: Pick<TenantSettings, 'roundingMinutes' | 'defaultHourlyRate' | 'currency'>;
    progress: (count: number) => void;
  },
): Promise<void> {
  const reviewers = members.slice(1, 3).length > 0 ? members.slice(1, 3) : members.slice(0, 1);
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
      const member = seed.pick(members);
      let day = seed.now - Math.floor(seed.random() * 730) * dayMs;
      const weekday = new Date(day).getUTCDay();
      if (weekday === 0 || weekday === 6) day -= (weekday === 0 ? 2 : 1) * dayMs;
      const date = new Date(day);
      const startedAt = Date.UTC(
        date.getUTCFullYear(),
        date.getUTCMonth(),
        date.getUTCDate(),
        7 + Math.floor(seed.random() * 4),
        Math.floor(seed.random() * 4) * 15,
      );
      const minutes = 30 + Math.floor(seed.random() * 16) * 15;
      const breakMinutes = minutes > 180 && seed.random() < 0.5 ? 30 : 0;
      const project = seed.random() < 0.85 ? seed.pick(projects) : null;
      const vehicle = seed.random() < 0.1 ? seed.pick(vehicles) : null;
      const age = seed.now - startedAt;
      const status = age > 45 * dayMs ? 'approved' : seed.pick(['draft', 'draft', 'submitted', 'approved', 'rejected'] as const);
      const tags = [seed.pick(tagWords), ...(seed.random() < 0.3 ? [seed.pick(tagWords)] : [])];
      const reviewed = status === 'approved' || status === 'rejected';
      const reviewer = reviewers.find((candidate) => candidate !== member) ?? (members[0] as Member);
      const billable = seed.random() < 0.8;
      batch.push({
        id: uuidv7At(startedAt, seed.random),
        tenantUserId: member.id,
        projectId: project?.id ?? null,
        taskId: project && seed.random() < 0.4 ? seed.pick(project.tasks) : null,
        vehicleId: vehicle,
        distanceKm: vehicle ? (5 + Math.floor(seed.random() * 200)).toFixed(1) : null,
        startedAt: new Date(startedAt),
        endedAt: new Date(startedAt + minutes * 60_000),
        breakMinutes,
        description: `${seed.pick(verbs)} ${seed.pick(objects)} ${seed.pick(contexts)}`.trim(),
        billable,
        tags,
        rateSources: sourcesOf(member, project),
        status,
        submittedAt: status === 'draft' ? null : new Date(startedAt + dayMs),
        reviewedById: reviewed ? reviewer.id : null,
        reviewedAt: reviewed ? new Date(startedAt + 2 * dayMs) : null,
        rejectionReason: status === 'rejected' ? seed.pick(rejectionReasons) : null,
        createdAt: new Date(startedAt + minutes * 60_000),
        updatedAt: new Date(startedAt + 2 * dayMs),
      });
    }
    await writeSeedEntries(seed.sql, { id: seed.tenantId, settings }, batch);
    progress(count);
  }
}
