// Run by `npm run generate` after `prisma generate`.
//
// Prisma's generated client loads its query compiler (WebAssembly) by
// importing a module whose source is the binary as a 4.6 MB base64 string.
// An ES module is never unloaded, so every process held that text twice for
// its whole life, as the module's source and as the string it exports:
// 9 MB of a 55 MB heap at rest (measured with a heap snapshot of an API
// process). This rewrites the generated loader to read the same file as
// text, decode it and let the text go: the compiled WebAssembly module is
// all that stays. It fails, naming what it looked for, when a Prisma
// upgrade changes the generated code.
import fs from 'node:fs';
import path from 'node:path';

const generated = path.join(import.meta.dirname, '../src/generated/prisma/internal/class.ts');
const importOfTheText =
  /const \{ wasm \} = await import\(("@prisma\/client\/runtime\/query_compiler_[a-z]+_bg\.postgresql\.wasm-base64\.mjs")\)\n(\s*)return await decodeBase64AsWasm\(wasm\)/;

const source = fs.readFileSync(generated, 'utf8');
const found = importOfTheText.exec(source);
if (!found) {
  if (source.includes('query-compiler-from-file')) process.exit(0);
  console.error(`${generated}: the query compiler's loader is not the one prisma/query-compiler-from-file.mjs rewrites (Prisma changed it?)`);
  process.exit(1);
}
const [whole, specifier, indent] = found;
const readAsText = [
  '// Read as a file, not imported as a module (prisma/query-compiler-from-file.mjs says why).',
  "const { readFile } = await import('node:fs/promises')",
  "const { createRequire } = await import('node:module')",
  `const text = await readFile(createRequire(import.meta.url).resolve(${specifier}), 'utf8')`,
  "return await decodeBase64AsWasm(text.slice(text.indexOf('\"') + 1, text.lastIndexOf('\"')))",
].join(`\n${indent}`);
fs.writeFileSync(generated, source.replace(whole, readAsText));
