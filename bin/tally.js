#!/usr/bin/env node
// The `tally` command. It runs compiled JavaScript from dist/: the Docker image
// has only that; a source checkout compiles src/ into dist/ first when the
// sources changed (bin/build.mjs, about half a second). TALLY_SOURCES=1
// (`npm run dev`) runs the TypeScript sources through tsx instead, for
// development with stack traces into src/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const sources = new URL('src/cli/main.ts', root);
if (existsSync(sources) && process.env.TALLY_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  if (existsSync(sources)) {
    const { ensureBuilt } = await import('./build.mjs');
    const built = await ensureBuilt(fileURLToPath(root));
    if (built.outcome === 'built') process.stderr.write(`tally: compiled src/ into dist/ in ${built.ms} ms\n`);
  }
  // Stack traces name the TypeScript files and lines (dist/ has source maps).
  process.setSourceMapsEnabled(true);
  await import(new URL('dist/cli/main.js', root).href);
}
