/**
 * Rates and amounts are a permission (subject `Rate`, CONTRACT.md section 3):
 * every such field of every type resolves through here, so that a caller
 * without it reads null, over GraphQL and over REST alike (REST answers
 * with the same fields).
 */
import type { GraphQLContext } from './context.js';

/** What each rate or amount field's description says of who reads it. */
export const rateVisibility = 'Null unless the caller may read rates (owners, admins, managers; members where the tenant sets membersSeeRates).';

/** `value` for a caller who may read rates in `tenantId`, null for others. */
export async function visibleRate<Value>(context: GraphQLContext, tenantId: string, value: Value | null): Promise<Value | null> {
  if (value === null) return null;
  return (await context.tenantAccess(tenantId)).can('read', 'Rate') ? value : null;
}
