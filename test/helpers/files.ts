/** Files the API answers with, read by readers that are not Tally's own. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** The raw bytes of an answer (a file is not JSON), as a caller sending `headers` gets them. */
export async function download(baseUrl: string, route: string, query: Record<string, string>, headers: Record<string, string>) {
  const url = new URL(route, baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetch(url, { headers });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A PDF's text as poppler's `pdftotext -layout` reads it (pages end in a form feed). */
export async function pdfText(bytes: Buffer): Promise<string> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pdf-'));
  try {
    const file = path.join(directory, 'report.pdf');
    fs.writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
