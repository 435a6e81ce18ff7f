/**
 * The layers of src/, lowest first. A file may import from its own layer and
 * the layers below it, never from a layer above: so each layer can be read,
 * tested and changed knowing only what is under it. README.md ("Where things
 * are") describes the same list.
 *
 * A path is a top-level folder or file of src/: a folder is one layer, so
 * that where a file sits says what it may import (the test refuses a path
 * inside a folder). request/ is what a request is, what the gate promises
 * and the Idempotency-Key claims: REST (below the HTTP server) admits and
 * claims through it, and so does GraphQL over HTTP. Inside modules/, the
 * domains and their modules have rules of their own (dependencies.ts).
 */
export const layers: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'foundation', paths: ['generated', 'lib', 'config.ts', 'version.ts'] },
  { name: 'database', paths: ['db'] },
  { name: 'identity and permissions', paths: ['auth'] },
  { name: 'events', paths: ['events'] },
  { name: 'GraphQL kit', paths: ['graphql'] },
  { name: 'requests and the gate contract', paths: ['request'] },
  { name: 'REST kit', paths: ['rest'] },
  { name: 'HTTP', paths: ['http'] },
  { name: 'modules', paths: ['modules'] },
  { name: 'assembly', paths: ['schema.ts', 'services.ts', 'routes.ts', 'app.ts', 'worker.ts', 'runtime.ts', 'main.ts', 'cli', 'codegen'] },
];
