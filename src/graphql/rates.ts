/**
 * Rates and amounts are a permission (subject `Rate`, CONTRACT.md section 3):
 * every such field of every type resolves through here (and visibility.ts,
 * which renders every field a grant guards), so that a caller
 * without it reads null, over GraphQL and over REST alike (REST answers
 * with the same fields). Fields marked with `rateExtensions` are hidden by
 * the same rule where records are written without GraphQL (report files):
 * `rateHiderOf` reads the marks of the type once. Each prints at its
 * currency's scale (money.ts): the record's currency, else its tenant's.
 */
import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLObjectType, type GraphQLOutputType } from 'graphql';
import type { Permission } from '../auth/permissions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import { currencyOfSettings, moneyText, type DecimalLike } from '../lib/money.js';
import type { GraphQLContext } from './context.js';
import { moneyExtensions } from './money.js';

/** What each rate or amount field's description says of who reads it. */
export const rateVisibility = 'Null unless the caller may read rates (owners, admins, managers; members where the tenant sets membersSeeRates).';

/** The mark of a rate or amount field (`extensions` of its definition): files hide what is marked; it is money. */
export const rateExtensions = { rate: true, ...moneyExtensions } as const;

/** The grant that shows rates and amounts. */
const readRates: Permission = ['read', 'Rate'];

/** The Rate rule: whether this caller reads rates and amounts in the tenant. */
export const seesRates = (access: TenantAccess): boolean => access.holds(readRates);

/** What a rate or amount resolves from. */
type DecimalValue = DecimalLike;

/** `value` as money of `currency` (null: the tenant's) if `access` may read rates, else null. */
function shownTo(access: TenantAccess, value: DecimalValue, currency: string | null | undefined): string | null {
  return access.holds(readRates) ? moneyText(value, currency ?? currencyOfSettings(access.tenant.settings)) : null;
}

type MaybePromise<Value> = Value | Promise<Value>;

/**
 * A rate or amount of `tenantId` as this caller reads it: null unless they may read rates, else money at the scale
 * of `currency` (null: the tenant's). Decided at once when the request has entered the tenant (a report asks it
 * thousands of times), else once the guard has answered.
 */
function visibleMoney(
  context: GraphQLContext,
  tenantId: string,
  value: DecimalValue | null | undefined,
  currency: string | null | undefined,
): string | null | Promise<string | null> {
  if (value === null || value === undefined) return null;
  const entered = context.enteredTenant(tenantId);
  if (entered) return shownTo(entered, value, currency);
  return context.tenantAccess(tenantId).then((access) => shownTo(access, value, currency));
}

/** What a record's money field reads: its value (a promise when it is loaded apart, a project's spent amount). */
type ValueOf<Shape> = (record: Shape, context: GraphQLContext) => MaybePromise<DecimalValue | null | undefined>;

/** The currency of a record's rates and amounts (a promise when a loader reads it); null: its tenant's. */
type CurrencyOf<Shape> = (record: Shape, context: GraphQLContext) => MaybePromise<string | null | undefined>;

const ownCurrency = (record: object): string | null | undefined => (record as { currency?: string | null }).currency;

/**
 * The options of a rate or amount field (`t.field(rateFieldBy(...))`) of a record that knows its tenant: null
 * unless the caller may read rates, marked, so that files hide it too, and printed at the scale of the currency
 * `currencyOf` names (by default the record's own `currency`; null: the tenant's).
 */
export function rateFieldBy<Shape extends { tenantId: string }>(description: string, value: ValueOf<Shape>, currencyOf: CurrencyOf<Shape> = ownCurrency) {
  return {
    type: 'Decimal' as const,
    nullable: true as const,
    description: `${description} ${rateVisibility}`,
    extensions: rateExtensions,
    resolve: (record: Shape, _args: unknown, context: GraphQLContext): MaybePromise<string | null> => {
      // A caller who reads no rates reads null: neither the value nor its currency is looked up for them.
      if (context.enteredTenant(record.tenantId)?.holds(readRates) === false) return null;
      const found = value(record, context);
      const currency = currencyOf(record, context);
      if (found instanceof Promise || currency instanceof Promise) {
        return Promise.all([found, currency]).then(([stored, named]) => visibleMoney(context, record.tenantId, stored, named));
      }
      return visibleMoney(context, record.tenantId, found, currency);
    },
  };
}

/** `rateFieldBy` of the record's own field `name`. */
export function rateField<Name extends string, Shape extends { tenantId: string } & { [Field in Name]: DecimalValue | null }>(
  name: Name,
  description: string,
  currencyOf: CurrencyOf<Shape> = ownCurrency,
) {
  return rateFieldBy<Shape>(description, (record) => record[name], currencyOf);
}

/** The tenant's currency: of a member's own rates, of a project without a client. */
export const tenantCurrency = (): null => null;

/**
 * The options of a record's `currency` field when the record does not keep one (a member, a project): what
 * `currencyOf` says, else the tenant's. Read by callers who see no rates too: a currency is no rate.
 */
export function currencyField<Shape extends { tenantId: string }>(description: string, currencyOf: CurrencyOf<Shape>) {
  const orTenant = (context: GraphQLContext, tenantId: string, own: string | null | undefined): MaybePromise<string> => {
    if (own) return own;
    const entered = context.enteredTenant(tenantId);
    if (entered) return currencyOfSettings(entered.tenant.settings);
    return context.tenantAccess(tenantId).then((access) => currencyOfSettings(access.tenant.settings));
  };
  return {
    type: 'String' as const,
    description,
    resolve: (record: Shape, _args: unknown, context: GraphQLContext): MaybePromise<string> => {
      const own = currencyOf(record, context);
      return own instanceof Promise ? own.then((named) => orTenant(context, record.tenantId, named)) : orTenant(context, record.tenantId, own);
    },
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
