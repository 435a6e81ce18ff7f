/**
 * Writes the test clock's date into each test's meta (`clock`), when TEST_CLOCK sets one: the date-sensitive
 * suites run once per date in one vitest run (test/dates.config.ts), and the JSON report that .ci/run reads
 * names the file and the test, not the project, so a failure would not say at which date it failed.
 */
import { beforeEach } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** The date the test clock was set to (TEST_CLOCK). */
    clock?: string;
  }
}

beforeEach(({ task }) => {
  if (process.env.TEST_CLOCK) task.meta.clock = process.env.TEST_CLOCK;
});
