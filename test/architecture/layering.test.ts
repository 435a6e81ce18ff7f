import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { layers } from './layers.js';

const sourceRoot = path.resolve('src');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The layer index of a file under src/: the layer of its top-level folder, or of the file itself at the top. */
function layerOf(file: string): number {
  // Imports name the compiled `.js`; the layer table names the sources.
  const relative = path
    .relative(sourceRoot, file)
    .split(path.sep)
    .join('/')
    .replace(/(\.test)?\.[jt]s$/, '.ts');
  const top = relative.split('/')[0] as string;
  const index = layers.findIndex((layer) => layer.paths.includes(top));
  if (index === -1) throw new Error(`${path.relative(sourceRoot, file)} is in no layer: add its folder to test/architecture/layers.ts`);
  return index;
}

/** Relative imports of a file: static, re-exports, side-effect imports and dynamic ones. */
function relativeImportsOf(text: string): string[] {
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g,
    /(?:^|\n)\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/g,
    /import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
    /declare module\s+['"](\.{1,2}\/[^'"]+)['"]/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

describe('the layering of src/', () => {
  it('finds the imports it checks', () => {
    expect(relativeImportsOf("import type { A } from '../a.js';\nimport './b.js';\nexport { c } from './c.js';\nawait import('../d.js');").sort()).toEqual([
      '../a.js',
      '../d.js',
      './b.js',
      './c.js',
    ]);
  });

  it('names folders and files at the top of src/ only: a folder is one layer, whatever its files', () => {
    const paths = layers.flatMap((layer) => layer.paths);
    expect(paths.filter((entry) => entry.includes('/'))).toEqual([]);
    expect(paths.filter((entry) => !fs.existsSync(path.join(sourceRoot, entry)))).toEqual([]);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('has no import from a layer above the importing file', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(sourceRoot)) {
      const own = layerOf(file);
      for (const specifier of relativeImportsOf(fs.readFileSync(file, 'utf8'))) {
        const target = path.resolve(path.dirname(file), specifier);
        if (!target.startsWith(sourceRoot)) continue;
        const theirs = layerOf(target);
        if (theirs > own) {
          violations.push(`${path.relative(sourceRoot, file)} (${layers[own]?.name}) imports ${specifier} (${layers[theirs]?.name})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });
});
