import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:production`: the production smoke alone. It starts its own
 * database (the suite's global setup is not needed) and writes its own
 * report, which `.ci/run` counts with the suite's.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/production/**/*.smoke.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/production.json' },
  },
});
