import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainNames } from '../../src/modules/domain.js';
import { dependencyViolations, type DomainRule, type Import, ruleViolations } from './dependencies.js';
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

const modulesRoot = path.join(sourceRoot, 'modules');
const fromModules = (file: string) => path.relative(modulesRoot, file).split(path.sep).join('/');

/** Every import between files of src/modules/ (unit tests too: what they import, the module depends on). */
function moduleImports(): Import[] {
  return sourceFiles(modulesRoot).flatMap((file) =>
    relativeImportsOf(fs.readFileSync(file, 'utf8')).flatMap((specifier) => {
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      return target.startsWith(`${modulesRoot}${path.sep}`) ? [{ from: fromModules(file), to: fromModules(target) }] : [];
    }),
  );
}

/**
 * A domain's rule as its manifest states it: `uses: [...]`, read from the text (importing the manifest would
 * load every module, and a circle being reported may be one that breaks loading them).
 */
function ruleOf(domain: string): DomainRule {
  const manifest = fs.readFileSync(path.join(modulesRoot, domain, 'index.ts'), 'utf8');
  const uses = /\buses:\s*\[([^\]]*)\]/.exec(manifest);
  if (!uses) throw new Error(`src/modules/${domain}/index.ts states no uses: [...]`);
  return { name: domain, uses: [...(uses[1] as string).matchAll(/'([a-z-]+)'/g)].map((match) => match[1] as string) };
}

const domainFolders = () =>
  fs
    .readdirSync(modulesRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

describe('the domains of src/modules/', () => {
  it('are the folders under src/modules/, each with its manifest, which lists every module of it that has one', () => {
    expect(domainFolders().sort()).toEqual([...domainNames].sort());
    for (const domain of domainNames) {
      const manifest = fs.readFileSync(path.join(modulesRoot, domain, 'index.ts'), 'utf8');
      const withManifest = fs.readdirSync(path.join(modulesRoot, domain)).filter((name) => fs.existsSync(path.join(modulesRoot, domain, name, 'index.ts')));
      const imported = [...manifest.matchAll(/from '\.\/([a-z-]+)\/index\.js'/g)].map((match) => match[1]);
      expect(imported.sort(), `src/modules/${domain}/index.ts`).toEqual(withManifest.sort());
      expect(manifest).toContain(`name: '${domain}'`);
    }
    const list = fs.readFileSync(path.join(modulesRoot, 'index.ts'), 'utf8');
    expect(/export const domains = \[([^\]]*)\]/.exec(list)?.[1]?.match(/\w+Domain/g)).toEqual(domainNames.map((name) => `${name}Domain`));
  });

  it('use only domains below them', () => {
    expect(ruleViolations(domainNames.map(ruleOf))).toEqual([]);
  });

  it('have no module or domain cycle, and import only the domains their manifests allow', () => {
    const imports = moduleImports();
    expect(imports.length).toBeGreaterThan(300);
    expect(dependencyViolations(imports, domainNames.map(ruleOf))).toEqual([]);
  });
});
