import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports": Vite would pick its ESM build through "module"
    // while the libraries Node loads get the CommonJS one, and two copies of
    // graphql refuse each other's types. Use the file Node itself resolves.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
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
  },
});
