/**
 * No source file under src/ is over 400 lines: a file that long holds several
 * jobs (issue 38), and the next reader has to find the one they came for.
 * Every `.ts` file counts, unit tests beside the code included; generated
 * code (src/generated/, Prisma's client and Pothos' types, not committed) is
 * exempt, since nobody reads or edits it. The failure names each file and
 * its count, so the fix starts from the list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const limit = 400;
const root = path.resolve('src');
const generated = [path.join(root, 'generated')];

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((child) => {
    const full = path.join(dir, child.name);
    if (child.isDirectory()) return generated.includes(full) ? [] : typeScriptFiles(full);
    return child.name.endsWith('.ts') ? [full] : [];
  });
}

/** Lines as `wc -l` counts them: line breaks, plus a last line without one. */
function lineCount(text: string): number {
  const breaks = text.split('\n').length - 1;
  return text.length > 0 && !text.endsWith('\n') ? breaks + 1 : breaks;
}

describe('file size', () => {
  it(`no file in src/ is over ${limit} lines (generated code aside)`, () => {
    const files = typeScriptFiles(root);
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((file) => ({ file: path.relative(process.cwd(), file), lines: lineCount(fs.readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > limit)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over, `files over ${limit} lines`).toEqual([]);
  });
});
