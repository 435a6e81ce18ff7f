#!/usr/bin/env node
// The `tally` command. From a source checkout it runs the TypeScript sources
// through tsx; the Docker image has only the compiled dist/ and runs that.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
