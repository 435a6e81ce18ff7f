// Compiles src/ into dist/ for `tally` run from a checkout, so that `npm start`
// serves compiled JavaScript as the Docker image does, instead of TypeScript
// through tsx (which holds a compiler and every transformed source in memory:
// 327 MB resident against about 200). esbuild writes one file per source (no
// bundle, no type check: `npm run typecheck` and CI do that) in about half a
// second, and only when the sources changed since the last build: a hash of
// their paths and contents is kept in dist/.sources. Several processes
// starting at once build once: the first takes a lock directory, the others
// wait for it and find the build done.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * esbuild's version, from its package.json: a started process keeps what it imported, and importing esbuild
 * for its version alone kept its API (1 MB of heap) in every process that starts from a checkout.
 */
const esbuildVersion = () => JSON.parse(fs.readFileSync(require.resolve('esbuild/package.json'), 'utf8')).version;

/** A lock older than this belongs to a build that died. */
const staleLockMs = 60_000;

/** The TypeScript sources that make the program (tests excluded), sorted. */
function sourcesOf(sourceDir) {
  return fs
    .readdirSync(sourceDir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .sort();
}

function hashOf(sourceDir, files, compilerVersion) {
  const hash = createHash('sha256').update(`esbuild ${compilerVersion}\n`);
  for (const file of files)
    hash
      .update(`${file}\n`)
      .update(fs.readFileSync(path.join(sourceDir, file)))
      .update('\n');
  return hash.digest('hex');
}

const readStamp = (stamp) => {
  try {
    return fs.readFileSync(stamp, 'utf8').trim();
  } catch {
    return undefined;
  }
};

async function takeLock(lock) {
  for (;;) {
    try {
      fs.mkdirSync(lock);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > staleLockMs) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        // it went away meanwhile
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * esbuild's options for compiling the program of `<root>/src` into `<root>/dist`:
 * every source but tests, one output file each. The test of production
 * dependencies (test/architecture/production-dependencies.test.ts) builds
 * with them too, so that it sees what this build sees.
 */
export function programBuildOptions(root, files = sourcesOf(path.join(root, 'src'))) {
  const sourceDir = path.join(root, 'src');
  return {
    entryPoints: files.map((file) => path.join(sourceDir, file)),
    outdir: path.join(root, 'dist'),
    outbase: sourceDir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Lines only, not the sources themselves: Node loads every map (stack traces), and the TypeScript
    // text of each file would stay in memory with it.
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
  };
}

/**
 * Makes `<root>/dist` the compiled `<root>/src` and says what it did:
 * `fresh` (nothing to do) or `built` (with the milliseconds it took).
 */
export async function ensureBuilt(root) {
  const sourceDir = path.join(root, 'src');
  const outDir = path.join(root, 'dist');
  const stamp = path.join(outDir, '.sources');
  const version = esbuildVersion();
  const current = () => hashOf(sourceDir, sourcesOf(sourceDir), version);
  if (readStamp(stamp) === current()) return { outcome: 'fresh' };
  fs.mkdirSync(outDir, { recursive: true });
  const lock = path.join(outDir, '.building');
  await takeLock(lock);
  try {
    // Another process may have built while this one waited.
    const files = sourcesOf(sourceDir);
    const wanted = hashOf(sourceDir, files, version);
    if (readStamp(stamp) === wanted) return { outcome: 'fresh' };
    const started = performance.now();
    const { build } = await import('esbuild');
    await build(programBuildOptions(root, files));
    fs.writeFileSync(stamp, `${wanted}\n`);
    return { outcome: 'built', ms: Math.round(performance.now() - started) };
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
