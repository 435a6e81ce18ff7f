import { systemActor } from '../../../auth/actor.js';
import { systemAccess } from '../../../auth/tenant-access.js';
import type { Config } from '../../../config.js';
import { Prisma, type Db } from '../../../db/client.js';
import { AppError } from '../../../lib/errors.js';
import type { Logger } from '../../../lib/logger.js';
import type { Services } from '../../services.js';

export interface BootstrapResult {
  tenantId: string;
  key: string;
}

/**
 * First start on an empty database, outside production: tenant `demo` and one
 * admin API key, so a newcomer can call the API at once.
 */
export async function bootstrapDemoTenant({
  config,
  db,
  services,
  log,
}: {
  config: Config;
  db: Db;
  services: Pick<Services, 'tenants' | 'apiKeys'>;
  log: Logger;
}): Promise<BootstrapResult | undefined> {
  if (config.nodeEnv === 'production') return undefined;
  if ((await db.tenant.count()) > 0) return undefined;
  const actor = systemActor('bootstrap');
  let tenant: Awaited<ReturnType<typeof services.tenants.create>>;
  try {
    tenant = await services.tenants.create(actor, { name: 'Demo', slug: 'demo' });
  } catch (error) {
    // Another process starting at the same moment got there first (seen by the check, or by the unique index).
    if (error instanceof AppError && error.reason === 'SLUG_TAKEN') return undefined;
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return undefined;
    throw error;
  }
  const { key } = await services.apiKeys.create(systemAccess(tenant, actor), { name: 'bootstrap', expiresInDays: 90 });
  log.info({ tenantId: tenant.id }, 'bootstrap: created tenant "demo" and an admin API key (printed once on stdout)');
  return { tenantId: tenant.id, key };
}

/** The one place a secret is printed: once, for a human, on the first start of a development database. */
export function printBootstrapKey({ tenantId, key }: BootstrapResult, baseUrl: string): void {
  const lines = [
    'Tally created tenant "demo" and an admin API key for it.',
    'The key is shown only now; keep it somewhere safe:',
    '',
    `    ${key}`,
    '',
    'Try it:',
    `    curl -H "Authorization: Bearer ${key}" ${baseUrl}/tenants/${tenantId}/notes`,
    `Docs: ${baseUrl}/docs   GraphQL: ${baseUrl}/graphql`,
  ];
  const rule = '='.repeat(72);
  process.stdout.write(`\n${rule}\n${lines.join('\n')}\n${rule}\n\n`);
}
