/**
 * A tenant resource's regular GraphQL root fields, written from its argument
 * schemas and its service, as `crud()` writes its REST rows:
 *
 *   resourceFields('Note', {
 *     subject: 'Note',
 *     service: (services) => services.notes,
 *     queries: {
 *       notes: { list: ListNotesArgs, description: "The tenant's notes, newest first." },
 *       note: { get: NoteArgs, description: 'One note.' },
 *     },
 *     mutations: {
 *       createNote: { create: CreateNoteArgs, description: 'Writes a note as the caller.' },
 *       ...
 *     },
 *   });
 *
 * Each entry is one field, named by its key, registered in the order written
 * (the printed schema keeps that order). The kind says which permission it
 * needs and which service method runs it:
 *
 *   list        read    service.list(access, input, query)
 *   get         read    service.get(access, input.id, query)
 *   connection  read    service.page(access, input.filter, query), totalCount from service.count(access, input.filter)
 *   create      create  service.create(access, input.input, query)
 *   update      update  service.update(access, input.id, input.input, query)
 *   remove      delete  service.remove(access, input.id, query)
 *   step        update  service.<method>(access, input.id, query), or with
 *                       input.input before the query when the schema has one
 *
 * A step is a state change of one record, written with `step(args, method,
 * description)` as REST's `steps()` writes its rows (`issueClientInvoice:
 * step(ClientInvoiceArgs, 'issue', '...')` beside `POST .../{id}/issue`).
 * Fields of another shape (a secret shown once, a field of another type)
 * stay written out beside it with `tenantOperation`.
 */
import type { z } from 'zod';
import { statements, type Action, type Permission, type Subject } from '../auth/permissions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import type { StrictObject } from '../lib/dto.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';

/** The domain services, as the modules add them to the context (src/modules/services.ts). */
type Services = GraphQLContext['services'];
import { tenantOperation, type TenantOperation } from './operations.js';

type TenantArgs = StrictObject & { shape: { tenantId: z.ZodType<string> } };
type WithId = TenantArgs & { shape: { id: z.ZodType<string> } };
type WithInput = TenantArgs & { shape: { input: z.ZodType } };
type WithIdAndInput = WithId & { shape: { input: z.ZodType } };

/** The Prisma selection Pothos hands a field, to spread into the service's query. */
type Query = object;
type InputOf<Schema extends StrictObject> = z.output<Schema>;
type FilterOf<Schema extends StrictObject> = InputOf<Schema> extends { filter?: infer Filter } ? Filter | undefined : undefined;

interface Described {
  description: string;
}

export type QueryFieldSpec =
  | (Described & { list: TenantArgs })
  | (Described & { get: WithId })
  | (Described & {
      connection: TenantArgs;
      /** Adds `totalCount` from `service.count`. */
      totalCount?: boolean;
      /** The connection and edge type names; `<Model>Connection` and `<Model>Edge` by default. */
      names?: { connection: string; edge: string };
    });

/** A state change of one record: `service[method]` runs it, with the `action` it needs (update unless said). */
export interface StepFieldSpec<Schema extends WithId = WithId, Method extends string = string> extends Described {
  step: Schema;
  method: Method;
  action?: Action;
}

export type MutationFieldSpec =
  | (Described & { create: WithInput })
  | (Described & { update: WithIdAndInput })
  | (Described & { remove: WithId })
  | StepFieldSpec;

/** A step field: the method keeps its name as a literal, so that `resourceFields` checks the service has it. */
export function step<Schema extends WithId, Method extends string>(
  args: Schema,
  method: Method,
  description: string,
  action?: Action,
): StepFieldSpec<Schema, Method> {
  return { step: args, method, description, ...(action ? { action } : {}) };
}

/** A step's service method: the input's `input` (when its schema has one) after the id. */
type StepMethod<Schema extends WithId> =
  InputOf<Schema> extends { input: infer Input }
    ? (access: TenantAccess, id: string, input: Input, query: never) => Promise<unknown>
    : (access: TenantAccess, id: string, query: never) => Promise<unknown>;

/** The service method a field of this kind calls, with the input its schema validates. */
type MethodFor<Field> = Field extends { list: infer Schema extends TenantArgs }
  ? { list: (access: TenantAccess, input: InputOf<Schema>, query: never) => Promise<unknown[]> }
  : Field extends { get: WithId }
    ? { get: (access: TenantAccess, id: string, query: never) => Promise<unknown> }
    : Field extends { connection: infer Schema extends TenantArgs; totalCount: true }
      ? {
          page: (access: TenantAccess, filter: FilterOf<Schema>, query: never) => Promise<unknown[]>;
          count: (access: TenantAccess, filter: FilterOf<Schema>) => Promise<number>;
        }
      : Field extends { connection: infer Schema extends TenantArgs }
        ? { page: (access: TenantAccess, filter: FilterOf<Schema>, query: never) => Promise<unknown[]> }
        : Field extends { create: infer Schema extends WithInput }
          ? { create: (access: TenantAccess, input: InputOf<Schema>['input'], query: never) => Promise<unknown> }
          : Field extends { update: infer Schema extends WithIdAndInput }
            ? { update: (access: TenantAccess, id: string, input: InputOf<Schema>['input'], query: never) => Promise<unknown> }
            : Field extends { remove: WithId }
              ? { remove: (access: TenantAccess, id: string, query: never) => Promise<unknown> }
              : Field extends StepFieldSpec<infer Schema, infer Method>
                ? { [Name in Method]: StepMethod<Schema> }
                : never;

type UnionToIntersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (value: infer Both) => void ? Both : never;

/** Every method the written fields call. */
type ServiceFor<Fields> = UnionToIntersection<{ [Name in keyof Fields]: MethodFor<Fields[Name]> }[keyof Fields]>;

export interface ResourceFieldsSpec<Queries, Mutations> {
  /** The permission subject every field checks. */
  subject: Subject;
  /** The module's service; its methods are checked against the fields written. */
  service: (services: Services) => ServiceFor<Queries> & ServiceFor<Mutations>;
  queries?: Queries;
  mutations?: Mutations;
}

/** What the helper reads of a spec once its types have been checked. */
interface LooseSpec {
  subject: Subject;
  service: (services: Services) => Partial<Record<string, unknown>>;
}

type ModelName = keyof PrismaTypes & string;

/**
 * Pothos types a Prisma field by its model as a literal; over a model chosen
 * by the caller its generics do not resolve. The helper's own signature is
 * the checked surface, and these are the options it hands on.
 */
interface PrismaFieldBuilder {
  prismaField(options: object): unknown;
  prismaConnection(options: object, connection: object, edge: object): unknown;
}

/** The (action, subject) a field needs; a pair the matrix does not know fails at startup, naming the field. */
function permissionOf(action: Action, subject: Subject, field: string): Permission {
  if (!(statements[subject] as readonly Action[]).includes(action)) throw new Error(`${field}: ${subject} has no ${action} permission`);
  return [action, subject] as unknown as Permission;
}

/** A service method, loosely typed: `resourceFields` checked its signature against the kind. */
type Run = (...args: unknown[]) => Promise<unknown>;

/**
 * Finds the kind's method on the request's services. Services are built per
 * app (a test process may run several), so it is looked up on every call.
 */
function runner(spec: LooseSpec, name: string, field: string) {
  return (services: Services): Run => {
    const service = spec.service(services);
    const found = service[name];
    if (typeof found !== 'function') throw new Error(`${field}: the service has no ${name}()`);
    return (found as Run).bind(service);
  };
}

type AnyInput = { id?: unknown; input?: unknown; filter?: unknown };

/** The fields other than connections: what each kind needs and what its service method takes from the input. */
const plainKinds = {
  list: { root: 'Query', action: 'read', many: true, argumentsOf: (input: AnyInput) => [input] },
  get: { root: 'Query', action: 'read', many: false, argumentsOf: (input: AnyInput) => [input.id] },
  create: { root: 'Mutation', action: 'create', many: false, argumentsOf: (input: AnyInput) => [input.input] },
  update: { root: 'Mutation', action: 'update', many: false, argumentsOf: (input: AnyInput) => [input.id, input.input] },
  remove: { root: 'Mutation', action: 'delete', many: false, argumentsOf: (input: AnyInput) => [input.id] },
} as const satisfies Record<string, FieldKind>;
type PlainKind = keyof typeof plainKinds;

interface FieldKind {
  root: 'Query' | 'Mutation';
  action: Action;
  many: boolean;
  argumentsOf: (input: AnyInput) => unknown[];
}

/** A step's kind: a mutation of one record, its id (and input) handed on. */
const stepKind = (field: StepFieldSpec): FieldKind => ({
  root: 'Mutation',
  action: field.action ?? 'update',
  many: false,
  argumentsOf: 'input' in field.step.shape ? (input) => [input.id, input.input] : (input) => [input.id],
});

/** One field of `kind`, run by the service's `method`. */
function plainField(model: ModelName, spec: LooseSpec, name: string, kind: FieldKind, method: string, schema: TenantArgs, description: string): void {
  const { root, action, many, argumentsOf } = kind;
  const operation = tenantOperation(schema, permissionOf(action, spec.subject, name));
  const run = runner(spec, method, name);
  const define = (t: unknown) => {
    const fields = t as PrismaFieldBuilder & Parameters<TenantOperation<TenantArgs>['field']>[0];
    return fields.prismaField({
      type: many ? [model] : model,
      description,
      ...operation.field(fields),
      resolve: operation.resolveQuery((input, access, query: Query, { services }) => run(services)(access, ...argumentsOf(input as AnyInput), query)),
    }) as never;
  };
  if (root === 'Query') builder.queryField(name, define);
  else builder.mutationField(name, define);
}

function connectionField(model: ModelName, spec: LooseSpec, name: string, field: Extract<QueryFieldSpec, { connection: TenantArgs }>): void {
  const operation = tenantOperation(field.connection, permissionOf('read', spec.subject, name));
  const page = runner(spec, 'page', name);
  const count = field.totalCount ? runner(spec, 'count', name) : undefined;
  const names = field.names ?? { connection: `${model}Connection`, edge: `${model}Edge` };
  builder.queryField(
    name,
    (t) =>
      (t as unknown as PrismaFieldBuilder).prismaConnection(
        {
          type: model,
          cursor: 'id',
          description: field.description,
          ...operation.field(t),
          ...(count && {
            totalCount: operation.resolve((input, access, { services }) => count(services)(access, (input as AnyInput).filter)),
          }),
          resolve: operation.resolveQuery((input, access, query: Query, { services }) => page(services)(access, (input as AnyInput).filter, query)),
        },
        { name: names.connection },
        { name: names.edge },
      ) as never,
  );
}

/** Registers the resource's regular root fields, in the order written. */
export function resourceFields<
  Queries extends Record<string, QueryFieldSpec> = Record<never, never>,
  Mutations extends Record<string, MutationFieldSpec> = Record<never, never>,
>(model: ModelName, spec: ResourceFieldsSpec<Queries, Mutations>): void {
  const loose = spec as unknown as LooseSpec;
  const fields = [...Object.entries<QueryFieldSpec>(spec.queries ?? {}), ...Object.entries<MutationFieldSpec>(spec.mutations ?? {})];
  for (const [name, field] of fields) {
    if ('connection' in field) {
      connectionField(model, loose, name, field);
      continue;
    }
    if ('step' in field) {
      plainField(model, loose, name, stepKind(field), field.method, field.step, field.description);
      continue;
    }
    const kind = (Object.keys(plainKinds) as PlainKind[]).find((candidate) => candidate in field);
    if (!kind) throw new Error(`${name}: say which kind of field it is (list, get, connection, create, update, remove or step)`);
    plainField(model, loose, name, plainKinds[kind], kind, (field as unknown as Record<PlainKind, TenantArgs>)[kind], field.description);
  }
}
