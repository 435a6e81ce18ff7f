// PostGraphile beside the floor and Tally in `npm run bench`: the GraphQL API
// PostGraphile 5 (Amber preset) builds by introspecting the same seeded
// database, served on node:http by its own grafserv adaptor, as its library
// API documents. It does less than Tally and the floor: no API key, no tenant
// gate (any caller reads any tenant's notes), no rate limit, no events. The
// bench asks it for the same page of the same tenant's notes as the list
// scenarios (`allNotes(first:, condition: {tenantId}, orderBy: [CREATED_AT_DESC,
// ID_DESC])`), which the index Tally's list uses serves. Plain JavaScript, run
// as its own process, as the floor is. test/bench/run.ts installs PostGraphile on first use and runs a copy of this
// file beside it (.data/bench/postgraphile-<version>/server.mjs), so that its imports resolve there.
//
//   POST /graphql   PostGraphile's endpoint
//   GET  /health    200 once the schema is built (what the bench waits for)
//
// With KEY_CHECK=1 (`BENCH_POSTGRAPHILE_KEY_CHECK=1`), every request to /graphql first passes the floor's key check:
// the same statement (the key by its SHA-256, with its tenant), and 401 for a missing, revoked or expired key or a
// tenant that is not active. That is the statement Tally and the floor make per request and PostGraphile alone does
// not: PostGraphile beside them doing the same work.
import { createHash } from 'node:crypto';
import http from 'node:http';

// PostGraphile 5 declares Node >= 22 and uses Promise.withResolvers (Node 22); this project also runs on Node 20.19+,
// where without it every connection field fails ("reading 'items'"). The same three lines as V8's own.
Promise.withResolvers ??= function withResolvers() {
  let resolve;
  let reject;
  const promise = new this((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};
// After the polyfill: static imports would run before it.
const { postgraphile } = await import('postgraphile');
const { makePgService } = await import('postgraphile/adaptors/pg');
const { grafserv } = await import('postgraphile/grafserv/node');
const { PostGraphileAmberPreset } = await import('postgraphile/presets/amber');

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.DATABASE_URL,
      // The same pool size as the floor and Tally.
      poolConfig: { max: Number(process.env.POOL_SIZE ?? 10) },
      schemas: ['public'],
    }),
  ],
  // What a deployment would switch off: the in-browser IDE, and watching the database for schema changes.
  grafserv: { graphiql: false, watch: false },
};

const instance = postgraphile(preset);
// Build the schema before answering /health, so that the first measured request does not pay for it.
await instance.getSchemaResult();
const serv = instance.createServ(grafserv);
// createHandler rather than addTo: a handler that hands back what it does not serve, so /health can live beside it
// (addTo would answer 404 to it). No websockets are needed here.
const handler = serv.createHandler();

const keyCheck = process.env.KEY_CHECK === '1' ? new (await import('pg')).default.Pool({ connectionString: process.env.DATABASE_URL, max: 2 }) : undefined;

/** The floor's check (test/bench/floor.mjs): the key by its hash, with its tenant, in one statement. */
async function admitted(request) {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer svc_')) return false;
  const hash = createHash('sha256').update(header.slice('Bearer '.length)).digest('hex');
  const { rows } = await keyCheck.query(
    'SELECT k."tenantId", k."revokedAt", k."expiresAt", t.status FROM api_keys k JOIN tenants t ON t.id = k."tenantId" WHERE k."keyHash" = $1',
    [hash],
  );
  const key = rows[0];
  return key !== undefined && key.revokedAt === null && key.expiresAt > new Date() && key.status === 'active';
}

const serve = (request, response) =>
  handler(request, response, () => {
    const found = request.url === '/health';
    const text = found ? '{"status":"ok"}' : '{"code":"NOT_FOUND"}';
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });

const server = http.createServer((request, response) => {
  if (!keyCheck || request.url !== '/graphql') return serve(request, response);
  admitted(request).then(
    (admit) => {
      if (admit) return serve(request, response);
      response.writeHead(401, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"code":"UNAUTHENTICATED"}');
    },
    (error) => {
      process.stderr.write(`postgraphile key check: ${error.stack}\n`);
      response.writeHead(500).end();
    },
  );
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => Promise.all([instance.release(), keyCheck?.end()]).then(() => process.exit(0))));
