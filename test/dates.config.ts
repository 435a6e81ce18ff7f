/**
 * The date-sensitive suites at several dates in one run (`npm run test:dates`, test/dates.sh): one project per
 * date, named after it, with the test clock there (TEST_CLOCK; test/helpers/clock.ts). One run starts PostgreSQL
 * and migrates the template once, and fills the workers with every date's files instead of waiting for each
 * date's longest file (a run per date took 98 s for two; docs/performance.md, "CI time").
 */
import { defineConfig } from 'vitest/config';
import suite, { project, setupFiles, sharedProcessFiles } from './vitest.config.js';

const dates = (process.env.TEST_DATES ?? '').split(/\s+/).filter((date) => date !== '');
if (dates.length === 0) throw new Error('TEST_DATES names no date: run npm run test:dates');
const suites = (process.env.TEST_DATE_SUITES ?? '').split(/\s+/).filter((file) => file !== '');
if (suites.length === 0) throw new Error('TEST_DATE_SUITES names no file: run npm run test:dates');

export default defineConfig({
  ...suite,
  test: {
    ...suite.test,
    outputFile: { json: 'test-results/dates.json' },
    // The clock is read when test/helpers/clock.ts loads: a date's files share processes with each other only.
    // Each test's meta names its date (test/setup/clock-meta.ts), which .ci/run prints beside a failure.
    projects: dates.map((date) =>
      project({
        name: `at ${date}`,
        include: suites,
        env: { TEST_CLOCK: date },
        setupFiles: [...setupFiles, 'test/setup/clock-meta.ts'],
        ...sharedProcessFiles,
      }),
    ),
  },
});
