import { z } from 'zod';
import { actorReference } from '../../../auth/actor.js';
import type { ApiKeyCheck } from '../../../auth/authenticate.js';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { ApiKey, Prisma } from '../../../generated/prisma/client.js';
import type { TenantStatus } from '../../../generated/prisma/enums.js';
import type { Clock } from '../../../lib/clock.js';
import { randomBase62, sha256Hex } from '../../../lib/crypto.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { notFound } from '../../../lib/errors.js';

/** Every key starts with this literal prefix, so that the gate and secret scanners recognise it. */
export const apiKeyPrefix = 'svc_';
const randomPartLength = 40;
const displayPrefixLength = 8;
/** `lastUsedAt` is kept to the minute: one write per key per minute, not per request. */
const lastUsedResolution = '1 minute';

interface KeyRow extends Record<string, unknown> {
  id: string;
  tenantId: string;
  name: string;
  revoked: boolean;
  expired: boolean;
  useIsStale: boolean;
  tenantName: string;
  tenantSlug: string;
  tenantStatus: TenantStatus;
  tenantSettings: unknown;
}

export const CreateApiKeyDto = dto('CreateApiKeyDto', 'A new API key for admin scripts.', {
  name: z.string().trim().min(1).max(100).describe('What the key is for, e.g. "payroll export"'),
  expiresInDays: z.number().int().min(1).max(365).default(90).describe('Days until the key expires: 1 to 365, default 90'),
});

const tenantId = fields.id('Tenant id');
export const ListApiKeysArgs = args({ tenantId, ...pagination });
export const CreateApiKeyArgs = args({ tenantId, input: CreateApiKeyDto });
export const RevokeApiKeyArgs = args({ tenantId, id: fields.id('API key id') });

export type ApiKeyQuery = PrismaQuery<Prisma.ApiKeyInclude, Prisma.ApiKeySelect>;

/** The key record as the API shows it (never the hash). */
export function apiKeyView(key: ApiKey) {
  const { keyHash: _hash, ...view } = key;
  return view;
}

export function createApiKeyService({ db, sql, reads, clock }: { db: Db; sql: Sql; reads: Reads; clock: Clock }) {
  return {
    /** active, revoked, or expired (by the clock). */
    status(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>): 'active' | 'revoked' | 'expired' {
      return key.revokedAt ? 'revoked' : key.expiresAt <= clock.now() ? 'expired' : 'active';
    },

    /** Creates a key; the whole secret is returned here and never again. */
    async create(
      access: TenantAccess,
      { name, expiresInDays }: z.output<typeof CreateApiKeyDto>,
      query: ApiKeyQuery = {},
    ): Promise<{ apiKey: ApiKey; key: string }> {
      access.assert('create', 'ApiKey');
      const key = `${apiKeyPrefix}${randomBase62(randomPartLength)}`;
      const creator = actorReference(access.actor);
      const now = clock.now();
      return db.$transaction(async (tx) => {
        const created = await tx.apiKey.create({
          data: access.stamp({
            name,
            prefix: key.slice(0, displayPrefixLength),
            keyHash: sha256Hex(key),
            createdByType: creator.type,
            createdById: access.tenantUserId ?? creator.id,
            // Its days count from its creation, by the clock: both instants from it.
            createdAt: now,
            expiresAt: new Date(now.getTime() + expiresInDays * 24 * 60 * 60 * 1000),
          }),
        });
        await recordEvent(tx, access, { type: 'api_key.created', subjectId: created.id, data: apiKeyView(created) });
        const apiKey = shapesResult(query) ? await tx.apiKey.findUniqueOrThrow({ ...query, where: { id: created.id } }) : created;
        return { apiKey, key };
      });
    },

    /** The tenant's keys, newest first, revoked and expired ones included. */
    async list(access: TenantAccess, page: z.output<typeof ListApiKeysArgs>, query: ApiKeyQuery = {}): Promise<ApiKey[]> {
      return reads.run(access, ({ db }) => db.apiKey.findMany({ ...query, ...tenantPage(access.scope('read', 'ApiKey'), page) }));
    },

    /** Revokes a key; it fails at once on every process, since every request looks the key up. */
    async revoke(access: TenantAccess, id: string, query: ApiKeyQuery = {}): Promise<ApiKey> {
      const revocable = access.scope('delete', 'ApiKey');
      return db.$transaction(async (tx) => {
        const existing = await tx.apiKey.findFirst({ where: { id, ...revocable } });
        if (!existing) throw notFound('API key', id);
        const revoked = existing.revokedAt ? existing : await tx.apiKey.update({ where: { id }, data: { revokedAt: clock.now() } });
        if (!existing.revokedAt) await recordEvent(tx, access, { type: 'api_key.revoked', subjectId: id, data: apiKeyView(revoked) });
        return shapesResult(query) ? tx.apiKey.findUniqueOrThrow({ ...query, where: { id } }) : revoked;
      });
    },

    /**
     * Checks a presented `svc_...` key by its SHA-256, reading its tenant in
     * the same statement, and keeps `lastUsedAt`. Every request with a key
     * runs this, so it is plain SQL (see Sql); the times are compared with
     * the clock's instant, passed in.
     */
    async check(presented: string): Promise<ApiKeyCheck> {
      if (!presented.startsWith(apiKeyPrefix) || presented.length > 200) return { valid: false, reason: 'unknown' };
      const now = clock.now();
      const [key] = await sql.query<KeyRow>(
        `SELECT k.id, k."tenantId", k.name,
                k."revokedAt" IS NOT NULL AS revoked,
                k."expiresAt" <= $3::timestamptz AS expired,
                (k."lastUsedAt" IS NULL OR k."lastUsedAt" <= $3::timestamptz - $2::interval) AS "useIsStale",
                t.name AS "tenantName", t.slug AS "tenantSlug", t.status::text AS "tenantStatus", t.settings AS "tenantSettings"
           FROM api_keys k JOIN tenants t ON t.id = k."tenantId"
          WHERE k."keyHash" = $1`,
        [sha256Hex(presented), lastUsedResolution, now],
      );
      if (!key) return { valid: false, reason: 'unknown' };
      if (key.revoked) return { valid: false, reason: 'revoked' };
      if (key.expired) return { valid: false, reason: 'expired' };
      if (key.useIsStale) {
        await sql.query(`UPDATE api_keys SET "lastUsedAt" = $2, "updatedAt" = $2 WHERE id = $1`, [key.id, now]);
      }
      return {
        valid: true,
        actor: { type: 'api_key', apiKeyId: key.id, tenantId: key.tenantId, name: key.name },
        tenant: { id: key.tenantId, name: key.tenantName, slug: key.tenantSlug, status: key.tenantStatus, settings: key.tenantSettings },
      };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
