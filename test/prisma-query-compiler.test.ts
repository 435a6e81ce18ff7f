/**
 * The generated Prisma client reads its query compiler (WebAssembly) from its
 * file instead of importing it as a 4.6 MB base64 module, which a process
 * would hold for its whole life: `npm run generate` rewrites the generated
 * loader (prisma/query-compiler-from-file.mjs; docs/performance.md, "Memory",
 * has what it saves). Every test that queries proves the loader works; this
 * one that the rewrite is in place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const generatedLoader = path.resolve(import.meta.dirname, '../src/generated/prisma/internal/class.ts');

describe("the generated client's query compiler", () => {
  it('is read from its file, not imported as a module', () => {
    const source = fs.readFileSync(generatedLoader, 'utf8');
    expect(source).not.toMatch(/await import\("@prisma\/client\/runtime\/query_compiler_[a-z]+_bg\.postgresql\.wasm-base64\.mjs"\)/);
    expect(source).toContain('prisma/query-compiler-from-file.mjs says why');
  });
});
