/**
 * The Pothos builder: plugins and scopes only. Types live with their module
 * (src/modules/<resource>/<resource>.graphql.ts).
 */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type { Permission } from '../auth/permissions.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import { AppError, forbidden, unauthenticated } from '../lib/errors.js';
import { permittedAccess, type GraphQLContext } from './context.js';
import { DateScalar, DateTimeScalar, DecimalScalar, JsonObjectScalar } from './scalars.js';

/** The (action, subject) an operation needs in the tenant named by its `tenantId` argument. */
export interface TenantPermission {
  tenantId: string;
  permission: Permission;
}

/** The scope that failed, wherever scope-auth nested it ($any, $all, scope functions). */
function scopeFailureOf(failure: AuthFailure): Extract<AuthFailure, { kind: AuthScopeFailureType.AuthScope }> | undefined {
  if (failure.kind === AuthScopeFailureType.AuthScope) return failure;
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    for (const nested of failure.failures) {
      const found = scopeFailureOf(nested);
      if (found) return found;
    }
  }
  return undefined;
}

export interface BuilderTypes {
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  AuthScopes: {
    authenticated: boolean;
    superadmin: boolean;
    tenantPermission: TenantPermission;
  };
  Scalars: {
    DateTime: { Input: string; Output: Date | string };
    Date: { Input: string; Output: Date | string };
    Decimal: { Input: string; Output: { toString(): string } | string | number };
    JSONObject: { Input: never; Output: Record<string, unknown> };
  };
}

export const builder = new SchemaBuilder<BuilderTypes>({
  // Scope auth first: after the errors or prisma plugins, a refusal would not stop the resolver chain early.
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (context) => ({
      authenticated: context.actor !== null,
      superadmin: context.actor?.type === 'user' && context.actor.isSuperadmin,
      // Refuses by throwing: 404 for another tenant, 403 without the grant (the same check as REST's).
      tenantPermission: async ({ tenantId, permission }) => Boolean(await permittedAccess(context, tenantId, permission)),
    }),
    // Scope parameters are objects; identical ones share one check per request.
    cacheKey: (value) => JSON.stringify(value),
    unauthorizedError: (_parent, context, _info, result) => {
      if (context.actor === null) return unauthenticated();
      const failure = scopeFailureOf(result.failure);
      if (failure?.error instanceof AppError) return failure.error;
      if (failure?.scope === 'superadmin') return forbidden('Only a superadmin may do this');
      return forbidden();
    },
  },
  prisma: {
    client: (context) => context.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    // A resolver that ignores the selection Pothos computed would cause N+1 queries.
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'error',
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // The global `node(id)` queries would load any record by id, around the tenant guard.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
});

/** The builder's resolved type configuration, for helpers that build fields. */
export type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('Date', DateScalar);
builder.addScalarType('Decimal', DecimalScalar);
builder.addScalarType('JSONObject', JsonObjectScalar);

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
