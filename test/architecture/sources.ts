/** What the architecture tests read: source files, and their text without comments. */
import fs from 'node:fs';
import path from 'node:path';

/** The TypeScript files under `entry` (a folder), or `entry` itself (a file); unit tests aside: they hold fixtures. */
export function sourceFiles(entry: string): string[] {
  if (!fs.statSync(entry).isDirectory()) return [entry];
  return fs.readdirSync(entry, { withFileTypes: true }).flatMap((child) => {
    const full = path.join(entry, child.name);
    if (child.isDirectory()) return sourceFiles(full);
    return child.name.endsWith('.ts') && !child.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The text with its comments blanked out, line breaks kept (so that positions keep their line numbers). */
export function withoutComments(text: string): string {
  const blank = (comment: string) => comment.replace(/[^\n]/g, ' ');
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/^([ \t]*)\/\/.*$/gm, (line, indent: string) => indent + blank(line.slice(indent.length)));
}
