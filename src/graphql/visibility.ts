/**
 * Fields that only some callers read. Each is guarded by a grant of the
 * permission matrix (src/auth/permissions.ts), and everyone else reads null,
 * over GraphQL and over REST alike (REST answers with the same fields):
 * rates and amounts by `Rate` (rates.ts), a client's notes by `ClientNotes`.
 * Who holds such a grant is the matrix's to say, so `users/me` lists it
 * with the others; no resolver decides it for itself.
 */
import type { Permission } from '../auth/permissions.js';
import type { GraphQLContext } from './context.js';

/**
 * `value` for a caller who holds `permission` in `tenantId`, null for others. Decided at once when the request has
 * entered the tenant already (a summary asks for each of its thousands of totals: a promise each cost more than
 * the rest of rendering them).
 */
export function visibleTo<Value>(context: GraphQLContext, tenantId: string, permission: Permission, value: Value | null): Value | null | Promise<Value | null> {
  if (value === null) return null;
  const entered = context.enteredTenant(tenantId);
  if (entered) return entered.holds(permission) ? value : null;
  return context.tenantAccess(tenantId).then((access) => (access.holds(permission) ? value : null));
}

/**
 * The options of a text field that only holders of `permission` read (`t.field(restrictedField(...))`), of a
 * record that knows its tenant.
 */
export function restrictedField<Name extends string, Shape extends { tenantId: string } & { [Field in Name]: string | null }>(
  name: Name,
  permission: Permission,
  description: string,
) {
  return {
    type: 'String' as const,
    nullable: true as const,
    description,
    resolve: (record: Shape, _args: unknown, context: GraphQLContext) => visibleTo(context, record.tenantId, permission, record[name]),
  };
}
