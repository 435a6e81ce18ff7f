/**
 * Module hooks (`module.register`) that append every URL an import resolves to
 * to the file RESOLVED_LOG names: what a process's module graph loads, for
 * test/lazy-modules.test.ts. The hooks run on their own thread, so they write
 * a file rather than answer the test.
 */
import fs from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  fs.appendFileSync(process.env.RESOLVED_LOG, `${resolved.url}\n`);
  return resolved;
}
