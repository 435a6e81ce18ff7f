import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The suites whose answers depend on the calendar date (test/dates.sh says why each; keep both lists equal),
 * run again with the test clock at each date of TEST_DATES (space-separated, e.g. `2027-01-02 2027-04-01`)
 * as projects `dates-<date>` of the same run, sharing its PostgreSQL and template. Opt-in: CI still runs
 * `npm run test:dates` after the suite, because on the loaded 2-core machine one run with both dates took
 * longer than two runs of one date (docs/performance.md, "CI time").
 */
export const dateSuites = ['test/time-off.test.ts', 'test/client-invoices.test.ts', 'test/time-zones.test.ts', 'test/list-plans.test.ts'];
const testDates = (process.env.TEST_DATES ?? '').split(/[\s,]+/).filter((date) => date !== '');

const everyFile = ['test/**/*.test.ts', 'src/**/*.test.ts'];

// `extends: true` adds a project's arrays to the root's: `include` is each project's own, never the root's.
const dateProjects: TestProjectInlineConfiguration[] = testDates.map((date) => ({
  extends: true,
  // Read by test/helpers/clock.ts when a file of the project loads it: each file runs in a process of its own.
  test: { name: `dates-${date}`, include: dateSuites, env: { TEST_CLOCK: date } },
}));

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports": Vite would pick its ESM build through "module"
    // while the libraries Node loads get the CommonJS one, and two copies of
    // graphql refuse each other's types. Use the file Node itself resolves.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    ...(dateProjects.length > 0 ? {} : { include: everyFile }),
    globalSetup: ['test/setup/global-setup.ts'],
    // A test fails when pg warns that its queries overlapped on one connection (pg 9 refuses them).
    setupFiles: ['test/setup/overlapping-queries.ts'],
    // Each file starts its own server on its own database; files run in parallel.
    pool: 'forks',
    // Vitest's default is one file fewer than the cores: one file at a time on the 2-core CI machines, while
    // most files spend much of their time waiting (on PostgreSQL, a JVM, a child process, a timer). Three at a
    // time on two cores: the suite in 7.7 min instead of 11.6 (docs/performance.md). TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 3),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/report.json' },
    ...(dateProjects.length > 0 ? { projects: [{ extends: true, test: { name: 'suite', include: everyFile } }, ...dateProjects] } : {}),
  },
});
