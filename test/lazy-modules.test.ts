/**
 * What an API process loads when it starts leaves out the packages only some
 * work needs: each is loaded on first use (docs/performance.md, "Memory",
 * "Loaded on first use"), and a static import that brings one back costs
 * every process its memory. Checked on the module graph of the runtime and
 * the app, through module hooks that record every import resolved.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The URLs that importing `modules` in a fresh process resolves. */
async function urlsResolvedBy(modules: string[]): Promise<string[]> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tally-resolved-')), 'resolved.txt');
  const script = [
    "import { register } from 'node:module';",
    `register(${JSON.stringify(new URL('helpers/record-resolved.mjs', import.meta.url).href)});`,
    ...modules.map((module) => `await import(${JSON.stringify(`./${module}`)});`),
  ].join('\n');
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, RESOLVED_LOG: log },
  });
  const urls = fs.readFileSync(log, 'utf8').split('\n');
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
  return urls;
}

/** The packages (under node_modules) of `urls`. */
function packagesOf(urls: readonly string[]): Set<string> {
  const packages = new Set<string>();
  for (const url of urls) {
    const found = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (found) packages.add(found[1] as string);
  }
  return packages;
}

describe('an API process at start', () => {
  it('loads none of the packages loaded on first use', async () => {
    const urls = await urlsResolvedBy(['src/runtime.ts', 'src/app.ts']);
    const loaded = packagesOf(urls);
    // The graph was recorded: the engines every request uses are in it.
    expect(loaded).toContain('graphql');
    expect(loaded).toContain('sofa-api');
    const onFirstUse = ['nodemailer', 'pg-boss', 'better-auth', 'exceljs', 'pdfkit', 'xmlbuilder2', 'ics', 'csv-parse', 'csv-stringify', 'file-type', 'yaml'];
    expect(onFirstUse.filter((name) => loaded.has(name))).toEqual([]);
    // Country codes without the countries' names in 80 languages (the package's main entry registers them all).
    expect(loaded).toContain('i18n-iso-countries');
    expect(urls.filter((url) => url.endsWith('/i18n-iso-countries/entry-node.js'))).toEqual([]);
  }, 120_000);
});
