/**
 * Rates and amounts are a permission (subject `Rate`, CONTRACT.md section 3):
 * every such field of every type resolves through here (and visibility.ts,
 * which renders every field a grant guards), so that a caller
 * without it reads null, over GraphQL and over REST alike (REST answers
 * with the same fields). Fields marked with `rateExtensions` are hidden by
 * the same rule where records are written without GraphQL (report files):
 * `rateHiderOf` reads the marks of the type once.
 */
import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLObjectType, type GraphQLOutputType } from 'graphql';
import type { Permission } from '../auth/permissions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import type { GraphQLContext } from './context.js';
import { visibleTo } from './visibility.js';

/** What each rate or amount field's description says of who reads it. */
export const rateVisibility = 'Null unless the caller may read rates (owners, admins, managers; members where the tenant sets membersSeeRates).';

/** The mark of a rate or amount field (`extensions` of its definition): files hide what is marked. */
export const rateExtensions = { rate: true } as const;

/** The grant that shows rates and amounts. */
const readRates: Permission = ['read', 'Rate'];

/** The Rate rule: whether this caller reads rates and amounts in the tenant. */
export const seesRates = (access: TenantAccess): boolean => access.holds(readRates);

/** `value` for a caller who may read rates in `tenantId`, null for others (visibility.ts). */
export function visibleRate<Value>(context: GraphQLContext, tenantId: string, value: Value | null): Value | null | Promise<Value | null> {
  return visibleTo(context, tenantId, readRates, value);
}

/** What a Decimal field resolves to. */
type DecimalValue = { toString(): string } | string | number;

/**
 * The options of a rate or amount field (`t.field(rateField(...))`) of a record that knows its tenant: null unless
 * the caller may read rates, and marked, so that files hide it too.
 */
export function rateField<Name extends string, Shape extends { tenantId: string } & { [Field in Name]: DecimalValue | null }>(name: Name, description: string) {
  return {
    type: 'Decimal' as const,
    nullable: true as const,
    description: `${description} ${rateVisibility}`,
    extensions: rateExtensions,
    resolve: (record: Shape, _args: unknown, context: GraphQLContext) => visibleRate(context, record.tenantId, record[name]),
  };
}

/** A record as a caller who may not read rates sees it. */
export type RateHider = (record: object) => object;

const isRateField = (extensions: object | null | undefined): boolean => (extensions as { rate?: unknown } | null | undefined)?.rate === true;

const hiders = new WeakMap<GraphQLObjectType, RateHider | null>();

/**
 * For records of `type`: a copy with its marked fields null, and those of
 * the objects it holds (a summary's groups and their totals); undefined when
 * the type holds none. Built once per type from its fields' marks.
 */
export function rateHiderOf(type: GraphQLObjectType): RateHider | undefined {
  const known = hiders.get(type);
  if (known !== undefined) return known ?? undefined;
  hiders.set(type, null); // a type that holds itself (a group's sub-groups) sees this while it is built
  const rates: string[] = [];
  const nested: { name: string; list: boolean; type: GraphQLObjectType }[] = [];
  for (const field of Object.values(type.getFields())) {
    if (isRateField(field.extensions)) rates.push(field.name);
    const named = getNamedType(field.type);
    if (isObjectType(named)) nested.push({ name: field.name, list: isList(field.type), type: named });
  }
  const inner = nested.filter((field) => rateHiderOf(field.type) !== undefined || field.type === type);
  if (rates.length === 0 && inner.length === 0) return undefined;
  const hide: RateHider = (record) => {
    const copy: Record<string, unknown> = { ...record };
    for (const name of rates) if (name in copy) copy[name] = null;
    for (const field of inner) {
      const value = copy[field.name];
      const hideInner = rateHiderOf(field.type) as RateHider;
      if (value === null || value === undefined) continue;
      copy[field.name] = field.list ? (value as object[]).map(hideInner) : hideInner(value as object);
    }
    return copy;
  };
  hiders.set(type, hide);
  return hide;
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}
