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

const server = http.createServer((request, response) => {
  handler(request, response, () => {
    const found = request.url === '/health';
    const text = found ? '{"status":"ok"}' : '{"code":"NOT_FOUND"}';
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => Promise.resolve(instance.release()).then(() => process.exit(0))));
