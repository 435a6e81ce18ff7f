/**
 * The layers of src/, lowest first. A file may import from its own layer and
 * the layers below it, never from a layer above: so each layer can be read,
 * tested and changed knowing only what is under it. README.md ("Where things
 * are") describes the same list.
 *
 * A path is a top-level folder or file of src/, or a file inside a folder
 * that belongs to a lower layer than the rest of its folder: http/request.ts
 * is what a request is and what the gate promises, which REST (below the
 * HTTP server) admits through; http/idempotency.ts, the Idempotency-Key
 * claims that REST and GraphQL both make.
 */
export const layers: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'foundation', paths: ['generated', 'lib', 'config.ts', 'version.ts'] },
  { name: 'database', paths: ['db'] },
  { name: 'identity and permissions', paths: ['auth'] },
  { name: 'events', paths: ['events'] },
  { name: 'GraphQL kit', paths: ['graphql'] },
  { name: 'requests and the gate contract', paths: ['http/request.ts', 'http/idempotency.ts'] },
  { name: 'REST kit', paths: ['rest'] },
  { name: 'HTTP', paths: ['http'] },
  { name: 'modules', paths: ['modules'] },
  { name: 'assembly', paths: ['schema.ts', 'services.ts', 'routes.ts', 'app.ts', 'worker.ts', 'runtime.ts', 'main.ts', 'cli', 'codegen'] },
];
