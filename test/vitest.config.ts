import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Files that need a process of their own: each times V8's full collection of its own heap, which the
 * modules and leftovers of the files run before it in a shared process make slower than its waits.
 */
const isolatedFiles = ['src/lib/idle-collector.test.ts'];

/** A test fails when pg warns that its queries overlapped on one connection (pg 9 refuses them). */
export const setupFiles = ['test/setup/overlapping-queries.ts'];

/** What every project of a run has (a project does not inherit the root's options: see `project`). */
const projectDefaults = {
  resolve: {
    // graphql 16 has no "exports": Vite would pick its ESM build through "module"
    // while the libraries Node loads get the CommonJS one, and two copies of
    // graphql refuse each other's types. Use the file Node itself resolves.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    root,
    setupFiles,
    // Each file starts its own server on its own database; files run in parallel.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
} satisfies TestProjectInlineConfiguration;

/**
 * A project of this run. Not `extends: true`: a project that extends the root runs the root's global setup
 * again (a second PostgreSQL); the root's runs once and what it provides reaches every project.
 */
export function project(test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration {
  return { ...projectDefaults, test: { ...projectDefaults.test, ...test } };
}

/**
 * The suite's files share a process per worker (`isolate: false`): each file no longer loads Tally's modules
 * afresh, which was a sixth of the suite's worker time on the 2-core CI machines (233 of 1,450 s; the suite
 * took 502 s, and 355 s sharing; docs/performance.md, "CI time"). Every file stops what it starts and puts
 * back what it changes in the process; the few that cannot share run alone (`isolatedFiles`).
 */
export const sharedProcessFiles = { isolate: false } as const;

export default defineConfig({
  ...projectDefaults,
  test: {
    root,
    globalSetup: ['test/setup/global-setup.ts'],
    // Vitest's default is one file fewer than the cores: one file at a time on the 2-core CI machines, while
    // most files spend much of their time waiting (on PostgreSQL, a JVM, a child process, a timer). Three at a
    // time on two cores: the suite in 7.7 min instead of 11.6 (docs/performance.md). TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 3),
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/report.json' },
    projects: [
      project({
        name: 'suite',
        include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...isolatedFiles],
        ...sharedProcessFiles,
      }),
      project({ name: 'isolated', include: isolatedFiles }),
    ],
  },
});
