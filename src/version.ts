import fs from 'node:fs';

/** The package version, read once (the same relative path works from src/ and dist/). */
export const version: string = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
