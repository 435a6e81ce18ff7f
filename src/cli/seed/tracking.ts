/**
 * The seed's tracking data besides the entries (seed/entries.ts): clients, some with a rate of their own and each
 * with a billing address; projects for them, with budgets, a task list of tasks, and project members at project
 * rates; vehicles.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { RateSources } from '../../modules/tracking/entry/entry.values.js';
import { dayMs, type TenantSeed, uuidv7At } from './context.js';
import type { Member } from './platform.js';
import { clients, makes, objects, projectKinds, verbs } from './words.js';

export interface SeedClient {
  id: string;
  name: string;
  rate: string | null;
}

export interface ProjectRow {
  id: string;
  /** The rates that may apply to each member working on it: project member, project, client, member (entry.values.ts picks). */
  rateSourcesOf(member: Member): RateSources;
  tasks: string[];
}

const decimalOrNull = (value: string | null): Prisma.Decimal | null => (value === null ? null : new Prisma.Decimal(value));

/** The rates of a member's entry on no project: their own. */
export const memberSources = (member: Member): RateSources => ({
  memberRate: null,
  projectRate: null,
  clientRate: null,
  ownRate: new Prisma.Decimal(member.rate),
  costRate: new Prisma.Decimal(member.costRate),
  currency: null,
});

/** Three to five clients (by the tenant's index), in `currency`. */
export async function seedClients(seed: TenantSeed, currency: string): Promise<SeedClient[]> {
  const tenantClients: SeedClient[] = clients.slice(0, 3 + (seed.tenantIndex % 3)).map((name, index) => ({
    id: uuidv7At(seed.now - 770 * dayMs + index, seed.random),
    name,
    rate: seed.random() < 0.5 ? (90 + Math.floor(seed.random() * 60)).toFixed(2) : null,
  }));
  // With a billing address: issuing an invoice asks for it (the buyer of every e-invoice has one).
  for (const [index, client] of tenantClients.entries()) {
    const billingAddress = { line1: `Marktplatz ${index + 1}`, postcode: '80331', city: 'München', countryCode: 'DE' };
    await seed.sql.query(
      `INSERT INTO clients (id, "tenantId", name, currency, "hourlyRate", "billingAddress", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz - interval '770 days', $7::timestamptz)`,
      [client.id, seed.tenantId, client.name, currency, client.rate, JSON.stringify(billingAddress), seed.instant],
    );
  }
  return tenantClients;
}

/** A project for every two members (three at least), each for one of `tenantClients`. */
export async function seedProjects(
  seed: TenantSeed,
  { members, tenantClients, users, currency }: { members: readonly Member[]; tenantClients: readonly SeedClient[]; users: number; currency: string },
): Promise<ProjectRow[]> {
  const projects: ProjectRow[] = [];
  const projectCount = Math.max(3, Math.ceil(users / 2));
  for (let index = 0; index < projectCount; index += 1) {
    const id = uuidv7At(seed.now - 760 * dayMs + index * 1000, seed.random);
    const rate = seed.random() < 0.7 ? (80 + Math.floor(seed.random() * 80)).toFixed(2) : null;
    const client = seed.pick(tenantClients);
    const monthly = index % 3 === 1;
    await seed.sql.query(
      `INSERT INTO projects (id, "tenantId", name, code, "clientId", "hourlyRate", "budgetHours", "budgetAmount", "budgetPeriod", billable, status,
                             "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::"BudgetPeriod", $10, $11::"ProjectStatus", $12::timestamptz - interval '760 days', $12::timestamptz)`,
      [
        id,
        seed.tenantId,
        `${seed.pick(projectKinds)} for ${client.name}`,
        `P${seed.tenantIndex + 1}-${index + 1}`,
        client.id,
        rate,
        monthly ? 80 + index * 4 : 100 + index * 20,
        index % 2 === 0 ? (monthly ? 8_000 : 20_000 + index * 1_000).toFixed(2) : null,
        monthly ? 'monthly' : 'total',
        seed.random() < 0.85,
        index % 7 === 6 ? 'archived' : 'active',
        seed.instant,
      ],
    );
    // Some members work on it at a rate of their own.
    const staffed = new Map<string, string | null>();
    for (const member of members) {
      if (seed.random() < 0.3) staffed.set(member.id, seed.random() < 0.6 ? (100 + Math.floor(seed.random() * 60)).toFixed(2) : null);
    }
    for (const [memberId, memberRate] of staffed) {
      await seed.sql.query(
        `INSERT INTO project_members (id, "tenantId", "projectId", "tenantUserId", "hourlyRate", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6)`,
        [uuidv7At(seed.now - 755 * dayMs, seed.random), seed.tenantId, id, memberId, memberRate, seed.instant],
      );
    }
    const tasks: string[] = [];
    const listId = uuidv7At(seed.now - 750 * dayMs + index, seed.random);
    await seed.sql.query(`INSERT INTO task_lists (id, "tenantId", "projectId", name, "updatedAt") VALUES ($1, $2, $3, 'Backlog', $4)`, [
      listId,
      seed.tenantId,
      id,
      seed.instant,
    ]);
    for (let taskIndex = 0; taskIndex < 5; taskIndex += 1) {
      const taskId = uuidv7At(seed.now - 740 * dayMs + taskIndex, seed.random);
      const status = seed.pick(['open', 'in_progress', 'done'] as const);
      await seed.sql.query(
        `INSERT INTO tasks (id, "tenantId", "taskListId", title, status, "assigneeId", position, "completedAt", "updatedAt")
         VALUES ($1, $2, $3, $4, $5::"TaskStatus", $6, $7, $8, $9)`,
        [
          taskId,
          seed.tenantId,
          listId,
          `${seed.pick(verbs)} ${seed.pick(objects)}`,
          status,
          seed.pick(members).id,
          taskIndex,
          status === 'done' ? new Date(seed.now - seed.random() * 300 * dayMs) : null,
          seed.instant,
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
  return projects;
}

/** A vehicle for every five members (one at least). */
export async function seedVehicles(seed: TenantSeed, users: number): Promise<string[]> {
  const vehicles: string[] = [];
  for (let index = 0; index < Math.max(1, Math.ceil(users / 5)); index += 1) {
    const [make, model, fuel] = seed.pick(makes) as [string, string, string];
    const id = uuidv7At(seed.now - 730 * dayMs + index, seed.random);
    await seed.sql.query(
      `INSERT INTO vehicles (id, "tenantId", name, "licensePlate", make, model, "fuelType", "odometerKm", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        seed.tenantId,
        `${model} ${index + 1}`,
        `S ${seed.run.toUpperCase()} ${seed.tenantIndex}${index}`,
        make,
        model,
        fuel,
        10_000 + Math.floor(seed.random() * 90_000),
        seed.instant,
      ],
    );
    vehicles.push(id);
  }
  return vehicles;
}
