/**
 * Generated junk for every route (issue 30, 1b): path, query and body built
 * from the compiled route table the server itself serves, so a new row is
 * covered without being listed here. Values are now plausible (an enum's
 * values, dates, ids of real resources), now junk (the wrong type, bad dates,
 * control characters, huge numbers, unknown fields, broken JSON), sent with
 * the tenant's admin API key or a member's session. Every answer must be one
 * the OpenAPI document lists for that operation (test/helpers/contract.ts),
 * a 4xx must be problem+json, and nothing may be a 5xx.
 *
 * Deterministic: a fixed seed (FUZZ_SEED overrides it, FUZZ_RUNS the runs per
 * route); fast-check prints the seed and the shrunk request on failure.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argumentJsonSchema, type JsonSchema } from '../src/lib/dto.js';
import type { CompiledRoute } from '../src/rest/compile.js';
import { contractProblem } from './helpers/contract.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261130);
const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 25);

let provider: IdentityProvider;
let server: TestServer;
let team: Team;
/** Ids of real resources of the tenant, so that some generated paths and fields name something that exists. */
const knownIds: string[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  team = await seedTeam(server, provider, { approvalRequired: true, defaultHourlyRate: '80' });
  const { tenant, member } = team;
  const t = tenant.id;
  const created = async (answer: Promise<{ status: number; body: Json }>) => {
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).toBe(201);
    knownIds.push(String(body.id));
    return String(body.id);
  };
  const client = await created(tenant.api.post(`/tenants/${t}/clients`, { name: 'Fuzz client' }));
  const project = await created(tenant.api.post(`/tenants/${t}/projects`, { name: 'Fuzz project', clientId: client }));
  const list = await created(tenant.api.post(`/tenants/${t}/task-lists`, { name: 'Fuzz list', projectId: project }));
  await created(tenant.api.post(`/tenants/${t}/task-lists/${list}/tasks`, { title: 'Fuzz task' }));
  await created(member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-05-04T09:00:00Z', endedAt: '2026-05-04T10:30:00Z', projectId: project }));
  await created(tenant.api.post(`/tenants/${t}/notes`, { content: 'Fuzz note' }));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** Text that has broken servers before: bad dates and numbers, control characters, odd Unicode, long strings. */
const nastyText = fc.constantFrom(
  '',
  ' ',
  '-1',
  '0',
  '1e999',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '0000-01-01',
  '9999-12-31',
  '2026-02-30',
  '2026-13-01',
  '+275760-09-13',
  '2026-01-01T25:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '%',
  '%zz',
  '../..',
  '\u202Eevil',
  '😀',
  "'; DROP TABLE entries; --",
  'x'.repeat(5_000),
);
const junkScalar = fc.oneof(
  nastyText,
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, 0.1, -0.0),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: junkScalar },
  { weight: 1, arbitrary: fc.array(junkScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), junkScalar, { maxKeys: 3 }) },
);

const id = fc.oneof(fc.uuid(), fc.constant('0199a1f0-0000-7000-8000-000000000000'));
const date = fc.date({ min: new Date('1970-01-01'), max: new Date('2100-12-31'), noInvalidDate: true });

/** A value `schema` (a JSON Schema property) allows, or nearly: what a client that read the document might send. */
function plausible(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices?.length) return fc.oneof(...choices.map((choice) => plausible(choice, depth)));
  const type = Array.isArray(schema.type) ? (schema.type.find((each) => each !== 'null') as string | undefined) : (schema.type as string | undefined);
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 100_000;
      return fc.oneof(fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31)) }), fc.constantFrom(min - 1, max + 1));
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(plausible((schema.items ?? {}) as JsonSchema, depth + 1), { maxLength: 3 });
    case 'object': {
      if (depth > 2) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return fc.record(Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, value(property, depth + 1)])), {
        requiredKeys: [],
      });
    }
    default:
      if (schema.format === 'date') return date.map((day) => day.toISOString().slice(0, 10));
      if (schema.format === 'date-time') return date.map((instant) => instant.toISOString());
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'uri') return fc.webUrl();
      return fc.oneof(fc.constantFrom(...knownIds), id, fc.string({ maxLength: 40 }), fc.constantFrom('Europe/Berlin', 'EUR', '85.50', '#ff0000'));
  }
}

/** A field's value: mostly plausible, often junk. */
const value = (schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: plausible(schema, depth) }, { weight: 2, arbitrary: junk });

/** A query-string value as a client would write it (lists comma-separated). */
const queryText = (item: unknown): string =>
  Array.isArray(item) ? item.map(String).join(',') : typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item);

interface GeneratedRequest {
  who: 'admin' | 'member' | 'nobody';
  path: string;
  query: [string, string][];
  body: { type: string; text: string } | undefined;
  idempotencyKey: string | undefined;
}

/** Requests for `route`: its path parameters, its query arguments and its body, plausible or not. */
function requestsOf(route: CompiledRoute): fc.Arbitrary<GeneratedRequest> {
  const parameters = argumentJsonSchema(route.parametersSchema);
  const properties = (parameters.properties ?? {}) as Record<string, JsonSchema>;
  const segment = (param: string) =>
    param === 'tenantId'
      ? fc.oneof({ weight: 8, arbitrary: fc.constant(team.tenant.id) }, { weight: 1, arbitrary: id }, { weight: 1, arbitrary: nastyText })
      : fc.oneof(fc.constantFrom(...knownIds), id, nastyText, fc.string({ maxLength: 20 }));
  // Percent-encoded, so that the request goes to this route's path: an empty, `.` or `..` segment would be another
  // path. Lone surrogates become U+FFFD (encodeURIComponent refuses them); broken escapes are sent as they are.
  const encoded = (text: string) => (text === '' || text === '.' || text === '..' ? `${text}x` : encodeURIComponent(text.replace(/\p{Surrogate}/gu, '\uFFFD')));
  const path = fc
    .tuple(
      ...route.segments.map((part) =>
        'literal' in part
          ? fc.constant(part.literal)
          : fc.oneof(
              { weight: 9, arbitrary: segment(part.param).map(encoded) },
              { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', 'a%2500') },
            ),
      ),
    )
    .map((parts) => `/${parts.join('/')}`);
  const query = fc
    .tuple(
      ...Object.keys(route.queryArguments).map((name) =>
        fc.option(
          value(properties[name] ?? {}).map((item): [string, string] => [name, queryText(item)]),
          { freq: 2 },
        ),
      ),
      fc.option(fc.tuple(fc.constantFrom('unknown', 'limit', 'tenantId', ''), nastyText), { freq: 6 }),
    )
    .map((pairs) => pairs.filter((pair): pair is [string, string] => pair !== null));
  const bodySchema = route.kind === 'graphql' ? route.body?.schema : route.body?.kind === 'json' ? route.body.dto : undefined;
  const json = bodySchema
    ? fc.oneof(
        { weight: 6, arbitrary: plausible(argumentJsonSchema(bodySchema)) },
        { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), junk, { maxKeys: 3 }) },
        { weight: 1, arbitrary: junk },
      )
    : fc.oneof(fc.constant(undefined), fc.constant({}), junk);
  const body = fc.oneof(
    { weight: 8, arbitrary: json.map((item) => (item === undefined ? undefined : { type: 'application/json', text: JSON.stringify(item) ?? 'null' })) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', '\u0000', '[1,]', '').map((text) => ({ type: 'application/json', text })) },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constantFrom('text/plain', 'multipart/form-data', 'multipart/form-data; boundary=x', 'application/xml'),
        text: fc.string({ maxLength: 50 }),
      }),
    },
  );
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  const who = route.access.kind === 'public' ? fc.constant('nobody' as const) : fc.constantFrom('admin' as const, 'member' as const);
  return fc.record({
    who,
    path,
    query,
    body: hasBody ? body : fc.constant(undefined),
    idempotencyKey: hasBody ? fc.option(fc.oneof(fc.uuid(), nastyText), { freq: 4, nil: undefined }) : fc.constant(undefined),
  });
}

/** What came back, if it is not an answer the document promises for this request. */
async function wrongAnswer(route: CompiledRoute, request: GeneratedRequest): Promise<string | undefined> {
  const url = new URL(request.path, server.url);
  for (const [name, text] of request.query) url.searchParams.append(name, text);
  const headers: Record<string, string> = {};
  if (request.who === 'admin') headers.authorization = `Bearer ${team.tenant.key}`;
  if (request.who === 'member') {
    headers.cookie = team.member.cookie;
    headers.origin = server.url;
  }
  if (request.body) headers['content-type'] = request.body.type;
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey.replace(/[^\x20-\x7e]/g, '?');
  const response = await fetch(url, { method: route.method, headers, body: request.body?.text, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const contentType = response.headers.get('content-type');
  const seen = `${route.method} ${url.pathname}${url.search} answered ${response.status} ${contentType}: ${text.slice(0, 300)}`;
  if (response.status >= 500) return seen;
  if (response.status >= 400 && !contentType?.startsWith('application/problem+json')) return `not problem+json: ${seen}`;
  // A hidden row (the provider's form post, the sign-in error page) is served but not in the document.
  if (route.kind === 'native' && route.hidden) return undefined;
  const drift = contractProblem(route.method, url, response.status, contentType, parsed);
  return drift ? `${drift}\n${seen}` : undefined;
}

/** The routes to fuzz: all but signing the member's session out (the rest of the run needs it). */
const fuzzed = (routes: readonly CompiledRoute[]) => routes.filter((route) => route.operationId !== 'authControllerSignOut');

describe('generated requests to every route', () => {
  it('are answered as the document says, with a 4xx problem for bad input and never a 5xx', async () => {
    const routes = fuzzed(server.app.rest.routes);
    expect(routes.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const route of routes) {
      const result = await fc.check(
        fc.asyncProperty(requestsOf(route), async (request) => {
          const wrong = await wrongAnswer(route, request);
          if (wrong) throw new Error(wrong);
        }),
        { seed, numRuns: runsPerRoute, endOnFailure: true },
      );
      if (result.failed)
        failures.push(
          `${route.operationId} (seed ${seed}, path ${result.counterexamplePath}):\n  ${String(result.errorInstance instanceof Error ? result.errorInstance.message : result.errorInstance)}\n  request: ${JSON.stringify(result.counterexample)}`,
        );
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 120_000);
});
