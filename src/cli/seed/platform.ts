/**
 * The seed's platform: a tenant made through the services, as a user would (its settings, its absence types,
 * an admin API key), and its members, each with a user account as if they had signed in, inserted in bulk.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.js';
import { systemAccess } from '../../auth/tenant-access.js';
import type { Services } from '../../modules/services.js';
import { appendRow, dayMs, insertColumns, type SeedRandom, type TenantSeed, uuidv7At } from './context.js';
import { clients, firstNames, lastNames } from './words.js';

export interface Member {
  id: string;
  rate: string;
  costRate: string;
}

/** The tenant `tenantIndex` of this `run`, and an admin API key for it (shown once, by the CLI). */
export async function seedTenant(services: Services, { pick }: SeedRandom, actor: Actor, run: string, tenantIndex: number) {
  const tenant = await services.tenants.create(actor, {
    name: `${pick(clients)} Consulting ${tenantIndex + 1}`,
    slug: `seed-${run}-${tenantIndex + 1}`,
    settings: { defaultHourlyRate: '75', holidayRegion: 'DE-BY' },
  });
  const { key } = await services.apiKeys.create(systemAccess(tenant, actor), { name: 'seed', expiresInDays: 90 });
  return { tenant, key };
}

/** `count` members: the first the owner, the next two managers, at rates of their own. */
export async function seedMembers(seed: TenantSeed, count: number): Promise<Member[]> {
  const members: Member[] = [];
  const userRows: unknown[][] = [[], [], [], []];
  const memberRows: unknown[][] = [[], [], [], [], [], [], [], [], []];
  for (let index = 0; index < count; index += 1) {
    const name = `${seed.pick(firstNames)} ${seed.pick(lastNames)}`;
    const email = `${name.toLowerCase().replace(' ', '.')}.${seed.run}${seed.tenantIndex}${index}@seed.example`;
    const userId = randomUUID();
    const rate = 60 + Math.floor(seed.random() * 60);
    const member = { id: uuidv7At(seed.now - 800 * dayMs, seed.random), rate: rate.toFixed(2), costRate: (rate * (0.45 + seed.random() * 0.2)).toFixed(2) };
    members.push(member);
    appendRow(userRows, [userId, name, email, true]);
    const role = index === 0 ? 'owner' : index < 3 ? 'manager' : 'member';
    appendRow(memberRows, [member.id, seed.tenantId, userId, email, name, role, 'active', member.rate, member.costRate]);
  }
  await insertColumns(
    seed.sql,
    'users',
    [
      ['id', 'text'],
      ['name', 'text'],
      ['email', 'text'],
      ['emailVerified', 'boolean'],
    ],
    userRows,
  );
  await seed.sql.query(
    `INSERT INTO tenant_users (id, "tenantId", "userId", email, name, role, status, "hourlyRate", "costRate", "createdAt", "updatedAt")
     SELECT id, "tenantId", "userId", email, name, role::"TenantRole", status::"TenantUserStatus", "hourlyRate", "costRate",
            $10::timestamptz - interval '800 days', $10::timestamptz
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::numeric[])
         AS m(id, "tenantId", "userId", email, name, role, status, "hourlyRate", "costRate")`,
    [...memberRows, seed.instant],
  );
  return members;
}
