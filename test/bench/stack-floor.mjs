/**
 * What the chosen stack holds before any of Tally's code: a server with one
 * resource, built from the libraries Tally serves every request with, so that
 * Tally's resident memory can be read against what its stack alone needs
 * (issue 41's 120 MB goal; docs/performance.md, "Stop 51: what the stack
 * alone holds").
 *
 * Run by test/bench/memory-phases.ts as the checkout named `stack`
 * (`MEMORY_CHECKOUTS=stack,.`), on the same database and with the same Node
 * flags as Tally:
 * - a Pothos schema (scope-auth, prisma and relay plugins, the generated
 *   datamodel from dist/) with one type, Entry, its list and its get;
 * - graphql-yoga with graphql-jit at /graphql, sofa-api's REST rows for the
 *   two at /tenants/:tenantId/entries and /tenants/:tenantId/entries/:id;
 * - Prisma's client with the pg adapter (its query compiler read as Tally
 *   reads it), better-auth with its Prisma adapter and the generic OAuth
 *   plugin, asked for the session of every request as Tally asks it.
 * It has no key check, no tenant gate, no rate limit, no validation, no
 * OpenAPI document, no search and no other resource. It answers the phases'
 * requests where it can (lists, gets and GraphQL lists of entries) and 404
 * to the rest, and collects its garbage three times once idle, as Tally's
 * idle collector does.
 */
import http from 'node:http';
import vm from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import { useGraphQlJit } from '@envelop/graphql-jit';
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { PrismaPg } from '@prisma/adapter-pg';
import { createYoga } from 'graphql-yoga';
import { useSofa } from 'sofa-api';

const checkout = process.cwd();
const { PrismaClient } = await import(`${checkout}/dist/generated/prisma/client.js`);
const { getDatamodel } = await import(`${checkout}/dist/generated/pothos-prisma-types.js`);

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL, max: 10 }) });

const [{ betterAuth }, { prismaAdapter }, { genericOAuth }] = await Promise.all([
  import('better-auth'),
  import('better-auth/adapters/prisma'),
  import('better-auth/plugins/generic-oauth'),
]);
const auth = betterAuth({
  baseURL: process.env.BASE_URL,
  secret: process.env.AUTH_SECRET,
  database: prismaAdapter(prisma, { provider: 'postgresql' }),
  plugins: [
    genericOAuth({
      config: [
        {
          providerId: 'oidc',
          clientId: process.env.OIDC_CLIENT_ID ?? 'tally',
          clientSecret: process.env.OIDC_CLIENT_SECRET ?? 'secret',
          discoveryUrl: `${process.env.OIDC_ISSUER ?? 'http://127.0.0.1:1'}/.well-known/openid-configuration`,
        },
      ],
    }),
  ],
});

const builder = new SchemaBuilder({
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: { authScopes: () => ({ member: true }) },
  prisma: { client: prisma, dmmf: getDatamodel() },
  relay: {},
});
builder.prismaObject('Entry', {
  fields: (t) => ({
    id: t.exposeID('id'),
    description: t.exposeString('description', { nullable: true }),
    billable: t.exposeBoolean('billable'),
    startedAt: t.string({ resolve: (entry) => entry.startedAt.toISOString() }),
  }),
});
builder.queryType({
  fields: (t) => ({
    entries: t.prismaField({
      type: ['Entry'],
      authScopes: { member: true },
      args: { tenantId: t.arg.id({ required: true }), limit: t.arg.int() },
      resolve: (query, _root, args) =>
        prisma.entry.findMany({ ...query, where: { tenantId: String(args.tenantId) }, orderBy: { startedAt: 'desc' }, take: args.limit ?? 50 }),
    }),
    entry: t.prismaField({
      type: 'Entry',
      nullable: true,
      args: { tenantId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
      resolve: (query, _root, args) => prisma.entry.findFirst({ ...query, where: { tenantId: String(args.tenantId), id: String(args.id) } }),
    }),
  }),
});
const schema = builder.toSchema();

const context = async ({ request }) => ({ session: await auth.api.getSession({ headers: request.headers }) });
const yoga = createYoga({ schema, context, plugins: [useGraphQlJit()], graphiql: false, logging: false });
const sofa = useSofa({
  schema,
  basePath: '',
  context,
  routes: {
    'Query.entries': { method: 'GET', path: '/tenants/:tenantId/entries' },
    'Query.entry': { method: 'GET', path: '/tenants/:tenantId/entries/:id' },
  },
});

let lastRequest = performance.now();
/**
 * Three full collections once quiet for 5 s, as src/lib/idle-collector.ts has V8 make them (an eager
 * `vm.measureMemory`), so that both are read after the same collections.
 */
async function collectWhenQuiet() {
  // vm.measureMemory is experimental in Node 20 and warns once; the floor prints nothing.
  process.on('warning', () => {});
  for (;;) {
    await sleep(1000);
    if (performance.now() - lastRequest < 5000) continue;
    for (let round = 0; round < 3 && performance.now() - lastRequest >= 5000; round++) await vm.measureMemory({ mode: 'summary', execution: 'eager' });
    lastRequest = Number.POSITIVE_INFINITY;
  }
}

const server = http.createServer((request, response) => {
  lastRequest = performance.now();
  if (request.url === '/health') return response.end('{"status":"ok"}');
  if (request.url?.startsWith('/graphql')) return yoga(request, response);
  if (request.url?.startsWith('/tenants/')) return sofa(request, response);
  response.statusCode = 404;
  response.end();
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
void collectWhenQuiet();
