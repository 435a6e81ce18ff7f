/**
 * Root fields say who may run them and what they take, once:
 *
 *   const listNotes = tenantOperation(ListNotesArgs, ['read', 'Note']);
 *   notes: t.prismaField({
 *     type: ['Note'],
 *     ...listNotes.field(t),
 *     resolve: listNotes.resolveQuery((input, access, query, { services }) => services.notes.list(access, input, query)),
 *   }),
 *
 * The field gets its GraphQL arguments from the zod schema, a scope that runs
 * the tenant guard and checks the permission before the resolver
 * (`permittedAccess`, the check every entry point makes), and extensions that
 * REST and OpenAPI read back. The resolver gets the input validated once (by
 * the REST adapter, handed over as the operation's root value, or here) and
 * the caller's TenantAccess.
 */
import type { ArgBuilder, InputFieldsFromShape } from '@pothos/core';
import type { GraphQLFieldExtensions, GraphQLResolveInfo } from 'graphql';
import type { z } from 'zod';
import type { Actor } from '../auth/actor.js';
import type { Permission } from '../auth/permissions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import { fieldErrorsOf, type StrictObject } from '../lib/dto.js';
import { validationFailed } from '../lib/errors.js';
import type { SchemaTypes as Types, TenantPermission } from './builder.js';
import { actorOf, permittedAccess, type GraphQLContext } from './context.js';
import { argsFrom } from './inputs.js';

/** What REST and OpenAPI read from a root field: its argument schema and who may run it. */
export interface OperationExtensions {
  argsSchema: StrictObject;
  /** The (action, subject) a tenant operation needs in its tenant. */
  permission?: Permission;
  /** For operations outside a tenant: any caller, or superadmins only. */
  access?: 'authenticated' | 'superadmin';
}

export function operationExtensionsOf(extensions: Readonly<GraphQLFieldExtensions<unknown, unknown>> | null | undefined) {
  return (extensions ?? {}) as Partial<OperationExtensions>;
}

/**
 * A root field's input as its entry point already validated it: REST hands it
 * over as the operation's root value (GraphQL's value for the root fields of
 * an operation), so that the input is validated once. Who may run the field
 * is not part of it: the field's scope checks that for every entry point.
 */
export class PreparedInvocation {
  constructor(
    /** `Query.notes`, `Mutation.createNote`... */
    readonly field: string,
    readonly input: unknown,
  ) {}
}

/** The invocation prepared for exactly this field, if its entry point made one (only a root field's parent is the root value). */
function preparedFor(parent: unknown, info: GraphQLResolveInfo): PreparedInvocation | undefined {
  return parent instanceof PreparedInvocation && parent.field === `${info.parentType.name}.${info.fieldName}` ? parent : undefined;
}

/**
 * The field's input, validated. Relay connections add their own arguments
 * (first, after...), which are not ours to validate.
 */
function inputOf<Schema extends StrictObject>(schema: Schema, args: object, prepared: PreparedInvocation | undefined): z.output<Schema> {
  if (prepared) return prepared.input as z.output<Schema>;
  const own = Object.fromEntries(Object.entries(args).filter(([key]) => key in schema.shape));
  const parsed = schema.safeParse(own, { reportInput: true });
  if (parsed.success) return parsed.data;
  // Paths inside the DTO read as they do over REST, where the DTO is the whole body: `content`, not `input.content`.
  throw validationFailed(fieldErrorsOf(parsed.error).map((error) => ({ ...error, path: error.path.replace(/^input\./, '') })));
}

type FieldArgs<Schema extends StrictObject> = InputFieldsFromShape<Types, z.input<Schema>, 'Arg'>;
/** Extensions as Pothos types them: any record. */
type FieldExtensions = Record<string, unknown>;

export interface TenantOperation<Schema extends StrictObject> {
  /** Arguments, scope and extensions, to spread into a field definition. */
  field(t: { arg: ArgBuilder<Types> }): {
    args: FieldArgs<Schema>;
    authScopes: (parent: unknown, args: { tenantId: string }, context: GraphQLContext, info: GraphQLResolveInfo) => { tenantPermission: TenantPermission };
    extensions: FieldExtensions;
  };
  /** The resolver of a plain field. */
  resolve<Result>(
    run: (input: z.output<Schema>, access: TenantAccess, context: GraphQLContext) => Promise<Result>,
  ): (parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<Result>;
  /** The resolver of a Prisma field or connection: `query` carries the selection, to spread into the Prisma call. */
  resolveQuery<Query, Result>(
    run: (input: z.output<Schema>, access: TenantAccess, query: Query, context: GraphQLContext) => Promise<Result>,
  ): (query: Query, parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<Result>;
  /** The `subscribe` of a subscription field: the stream of what it pushes. */
  subscribe<Item>(
    run: (input: z.output<Schema>, access: TenantAccess, context: GraphQLContext) => Promise<AsyncIterable<Item>>,
  ): (parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<AsyncIterable<Item>>;
}

/** An operation inside the tenant named by its `tenantId` argument, needing `permission` there. */
export function tenantOperation<Schema extends StrictObject & { shape: { tenantId: z.ZodType<string> } }>(
  schema: Schema,
  permission: Permission,
): TenantOperation<Schema> {
  const extensions = { argsSchema: schema, permission } satisfies OperationExtensions;
  async function prepare(parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) {
    const input = inputOf(schema, args, preparedFor(parent, info));
    // The scope has admitted the caller to this tenant already: the same check again reads the request's memo.
    return { input, access: await permittedAccess(context, (input as { tenantId: string }).tenantId, permission) };
  }
  return {
    field: (t) => ({
      args: argsFrom(t, schema) as FieldArgs<Schema>,
      // The tenant the resolver will act in: the validated input's where the entry point prepared it (an id trimmed).
      authScopes: (parent, fieldArgs, _context, info) => ({
        tenantPermission: { tenantId: (preparedFor(parent, info)?.input as { tenantId: string } | undefined)?.tenantId ?? fieldArgs.tenantId, permission },
      }),
      extensions,
    }),
    resolve: (run) => async (parent, args, context, info) => {
      const { input, access } = await prepare(parent, args, context, info);
      return run(input, access, context);
    },
    resolveQuery: (run) => async (query, parent, args, context, info) => {
      const { input, access } = await prepare(parent, args, context, info);
      return run(input, access, query, context);
    },
    subscribe: (run) => async (parent, args, context, info) => {
      const { input, access } = await prepare(parent, args, context, info);
      return run(input, access, context);
    },
  };
}

export interface PlainOperation<Schema extends StrictObject> {
  field(t: { arg: ArgBuilder<Types> }): {
    args: FieldArgs<Schema>;
    authScopes: { superadmin: true } | { authenticated: true };
    extensions: FieldExtensions;
  };
  resolve<Result>(
    run: (input: z.output<Schema>, actor: Actor, context: GraphQLContext) => Promise<Result>,
  ): (parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<Result>;
  resolveQuery<Query, Result>(
    run: (input: z.output<Schema>, actor: Actor, query: Query, context: GraphQLContext) => Promise<Result>,
  ): (query: Query, parent: unknown, args: object, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<Result>;
}

/** An operation outside any tenant (/tenants, /admin): for any caller, or for superadmins only. */
export function plainOperation<Schema extends StrictObject>(schema: Schema, access: 'authenticated' | 'superadmin' = 'authenticated'): PlainOperation<Schema> {
  const extensions = { argsSchema: schema, access } satisfies OperationExtensions;
  return {
    field: (t) => ({
      args: argsFrom(t, schema) as FieldArgs<Schema>,
      authScopes: access === 'superadmin' ? { superadmin: true } : { authenticated: true },
      extensions,
    }),
    resolve: (run) => async (parent, args, context, info) => run(inputOf(schema, args, preparedFor(parent, info)), actorOf(context), context),
    resolveQuery: (run) => async (query, parent, args, context, info) =>
      run(inputOf(schema, args, preparedFor(parent, info)), actorOf(context), query, context),
  };
}
