/**
 * One way to list a tenant's records: newest first, by `(createdAt, id)`,
 * within the tenant, served by the tenant's `(tenantId, createdAt, id)` index.
 *
 * Why not by id alone, though ids are time-ordered UUIDv7: PostgreSQL drops
 * `tenantId` from `ORDER BY tenantId, id` when the query fixes the tenant, and
 * then likes the primary key, walking backwards through every newer row of
 * every other tenant to find this one's. An order the primary key cannot give
 * leaves the planner only the tenant's index. test/list-plans.test.ts checks
 * each list's plan.
 */
export const newestFirst: [{ createdAt: 'desc' }, { id: 'desc' }] = [{ createdAt: 'desc' }, { id: 'desc' }];

export interface Page {
  limit: number;
  offset: number;
}

/**
 * `findMany` arguments for one page of the records in `scope` (the access
 * model's: `access.scope('read', subject)`, spread after the extra
 * conditions in `where`), newest first unless the resource orders by its
 * own time (entries: when they started) on an index that starts with tenantId.
 */
export function tenantPage<Scope extends { tenantId: string }, Where extends object = object, Order extends object = typeof newestFirst>(
  scope: Scope,
  { limit, offset }: Page,
  where?: Where,
  orderBy?: Order,
) {
  return { where: { ...where, ...scope }, orderBy: orderBy ?? newestFirst, take: limit, skip: offset };
}
