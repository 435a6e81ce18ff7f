import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Sql } from '../../../db/client.js';
import { Parameters } from '../../../db/parameters.js';
import type { ReadClient } from '../../../db/replicas.js';
import { envelopeOf, type EventEnvelope } from '../../../events/envelope.js';
import { readEach } from '../../../events/live.js';
import type { ActorType } from '../../../generated/prisma/enums.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import type { ServiceDependencies } from '../../module.js';
import type { EntryHistoryArgs, EventFeedParameters, EventsConnectionArgs, FeedEvent, FeedFilters, TenantEventsArgs } from './event.contract.js';

interface EventRow extends Record<string, unknown> {
  id: string;
  type: string;
  tenantId: string | null;
  actorType: ActorType;
  actorId: string | null;
  subjectId: string | null;
  data: unknown;
  createdAt: Date;
}

const feedEventOf = (row: EventRow): FeedEvent => ({ ...envelopeOf(row), subjectId: row.subjectId });

const eventColumns = `e.id, e.type, e."tenantId", e."actorType", e."actorId", e."subjectId", e.data, e."createdAt"`;

/** The tenant's events as they commit (live), as a feed to sync from, and as one entry's history. */
export function createEventService({ db, reads, live }: Pick<ServiceDependencies, 'db' | 'reads' | 'live'>) {
  /**
   * One page of the feed: the tenant's events after `after`, in the order of
   * their transactions (txid, then id), and only those of transactions older
   * than every one still running. An event's id is taken when it is written,
   * not when it commits: ordered by id alone, a reader could move past an
   * event that was still being written and never see it. Events of
   * transactions that have all ended can no longer be joined by earlier ones.
   * On a replica the same holds: its snapshot counts the primary's
   * transactions it has not seen end as running. Read where `reads` says,
   * the cursor's lookup and the page on the same database.
   */
  function feedPage(access: TenantAccess, filters: FeedFilters & { after?: string | undefined }, limit: number): Promise<FeedEvent[]> {
    return reads.run(access, ({ sql }) => feedPageOn(sql, access, filters, limit));
  }

  async function feedPageOn(sql: Sql, access: TenantAccess, filters: FeedFilters & { after?: string | undefined }, limit: number): Promise<FeedEvent[]> {
    const parameters = new Parameters();
    const bind = parameters.add;
    const conditions = [access.sqlScope('read', 'Event', 'e', bind), 'e.txid < pg_snapshot_xmin(pg_current_snapshot())'];
    if (filters.after !== undefined) {
      // An id of another tenant, an unknown one and a pruned one are refused alike: the answer says nothing of other tenants.
      const lookup = new Parameters();
      const [cursor] = await sql.query<{ txid: string }>(
        `SELECT c.txid::text FROM events c WHERE c.id = ${lookup.add(filters.after)} AND ${access.sqlScope('read', 'Event', 'c', lookup.add)}`,
        lookup.values,
      );
      if (!cursor) {
        throw validationFailed([
          { path: 'after', message: "is not an event of this tenant's feed (events are kept EVENT_RETENTION_DAYS days; start again without `after`)" },
        ]);
      }
      conditions.push(`(e.txid, e.id) > (${bind(cursor.txid)}::xid8, ${bind(filters.after)})`);
    }
    if (filters.types && filters.types.length > 0) conditions.push(`e.type = ANY(${bind(filters.types)}::text[])`);
    if (filters.subjectId !== undefined) conditions.push(`e."subjectId" = ${bind(filters.subjectId)}`);
    if (filters.actorType !== undefined) conditions.push(`e."actorType" = ${bind(filters.actorType)}::"ActorType"`);
    if (filters.actorId !== undefined) conditions.push(`e."actorId" = ${bind(filters.actorId)}`);
    if (filters.from !== undefined) conditions.push(`e."createdAt" >= ${bind(filters.from)}`);
    if (filters.to !== undefined) conditions.push(`e."createdAt" < ${bind(filters.to)}`);
    const rows = await sql.query<EventRow>(
      `SELECT ${eventColumns} FROM events e WHERE ${conditions.join(' AND ')} ORDER BY e.txid, e.id LIMIT ${bind(limit)}`,
      parameters.values,
    );
    return rows.map(feedEventOf);
  }

  return {
    /** The tenant's events from now on, optionally of some types only, from any process. */
    async live(access: TenantAccess, input: z.output<typeof TenantEventsArgs>): Promise<AsyncIterable<EventEnvelope>> {
      const readable = access.scope('read', 'Event');
      const wanted = input.types && input.types.length > 0 ? new Set<string>(input.types) : undefined;
      const feed = await live.eventsOf(access.tenantId);
      return readEach(feed, async (pushed) => {
        if (wanted && !wanted.has(pushed.type)) return undefined;
        const event = await db.event.findFirst({ where: { id: pushed.id, ...readable } });
        return event ? envelopeOf(event) : undefined;
      });
    },

    /** The change feed: committed events, oldest first, after the cursor `after` (owners, admins, API keys). */
    async feed(access: TenantAccess, { tenantId: _tenant, limit, ...filters }: z.output<typeof EventFeedParameters>): Promise<FeedEvent[]> {
      access.assert('read', 'Event');
      return feedPage(access, filters, limit);
    },

    /** A page of the feed and whether more follow (GraphQL's connection). */
    async feedConnection(
      access: TenantAccess,
      { tenantId: _tenant, ...filters }: z.output<typeof EventsConnectionArgs>,
      page: { after: string | undefined; first: number },
    ): Promise<{ events: FeedEvent[]; hasMore: boolean }> {
      access.assert('read', 'Event');
      const events = await feedPage(access, { ...filters, after: page.after }, page.first + 1);
      return { events: events.slice(0, page.first), hasMore: events.length > page.first };
    },

    /** What happened to one entry, oldest first, and by whom. */
    async entryHistory(access: TenantAccess, args: z.output<typeof EntryHistoryArgs>): Promise<FeedEvent[]> {
      return reads.run(access, (client) => entryHistoryOn(client, access, args));
    },
  };

  async function entryHistoryOn(
    { db, sql }: ReadClient,
    access: TenantAccess,
    { id: entryId, limit, offset }: z.output<typeof EntryHistoryArgs>,
  ): Promise<FeedEvent[]> {
    // Owners and admins read any entry's history, a deleted entry's too; everyone else that of their own entries.
    if (!access.canAny('read', 'EntryHistory')) {
      const entry = await db.entry.findFirst({ where: { id: entryId, ...access.scope('read', 'Entry') }, select: { tenantUserId: true } });
      if (!entry || !access.owns('EntryHistory', entry)) throw notFound('Entry', entryId);
    }
    // The caller may read this entry's history (above): all of its events, whoever caused them.
    const parameters = new Parameters();
    const bind = parameters.add;
    const rows = await sql.query<EventRow>(
      `SELECT ${eventColumns} FROM events e WHERE ${access.sqlTenantWide('Event', 'e', bind)} AND e."subjectId" = ${bind(entryId)}
           ORDER BY e."createdAt", e.id LIMIT ${bind(limit)} OFFSET ${bind(offset)}`,
      parameters.values,
    );
    if (rows.length === 0 && offset === 0) {
      const exists = await db.entry.count({ where: { id: entryId, ...access.tenantWide('Entry') } });
      if (exists === 0) throw notFound('Entry', entryId);
    }
    return rows.map(feedEventOf);
  }
}

export type EventService = ReturnType<typeof createEventService>;
