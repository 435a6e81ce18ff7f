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
    // Each file starts its own server on its own database; files run in parallel.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/report.json' },
  },
});
