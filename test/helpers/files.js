/** Files the API answers with, read by readers that are not Tally's own. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
/** The raw bytes of an answer (a file is not JSON), as a caller sending `headers` gets them. */
export async function download(baseUrl, route, query, headers) {
    const url = new URL(route, baseUrl);
    for (const [name, value] of Object.entries(query))
        url.searchParams.set(name, value);
    const response = await fetch(url, { headers });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}
/** A PDF's text as poppler's `pdftotext -layout` reads it (pages end in a form feed). */
export async function pdfText(bytes) {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pdf-'));
    try {
        const file = path.join(directory, 'report.pdf');
        fs.writeFileSync(file, bytes);
        const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
        return stdout;
    }
    finally {
        fs.rmSync(directory, { recursive: true, force: true });
    }
}
/** Every word of a PDF with where it stands. */
export async function pdfWords(bytes) {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pdf-'));
    try {
        const file = path.join(directory, 'report.pdf');
        fs.writeFileSync(file, bytes);
        const { stdout } = await promisify(execFile)('pdftotext', ['-bbox', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
        const words = [];
        let page = 0;
        for (const line of stdout.split('\n')) {
            if (line.includes('<page '))
                page += 1;
            const word = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
            if (!word)
                continue;
            const [, xMin, yMin, xMax, yMax, text] = word;
            const unescaped = text
                .replace(/&lt;/g, '<')
                .replace(/&gt;/g, '>')
                .replace(/&quot;/g, '"')
                .replace(/&apos;/g, "'")
                .replace(/&amp;/g, '&');
            words.push({ page, text: unescaped, xMin: Number(xMin), yMin: Number(yMin), xMax: Number(xMax), yMax: Number(yMax) });
        }
        return words;
    }
    finally {
        fs.rmSync(directory, { recursive: true, force: true });
    }
}
/** A PDF's embedded files (`pdfdetach -list`) and the first one's bytes (`pdfdetach -save 1`), as poppler reads them. */
export async function pdfAttachments(bytes) {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pdf-'));
    try {
        const file = path.join(directory, 'document.pdf');
        fs.writeFileSync(file, bytes);
        const run = promisify(execFile);
        const { stdout: list } = await run('pdfdetach', ['-list', file]);
        const names = list
            .split('\n')
            .map((line) => /^\d+: (.*)$/.exec(line)?.[1])
            .filter((name) => name !== undefined);
        const saved = path.join(directory, 'first');
        if (names.length > 0)
            await run('pdfdetach', ['-save', '1', '-o', saved, file]);
        const { stdout: metadata } = await run('pdfinfo', ['-meta', file], { maxBuffer: 16 * 1024 * 1024 });
        return { names, first: names.length > 0 ? fs.readFileSync(saved) : undefined, metadata };
    }
    finally {
        fs.rmSync(directory, { recursive: true, force: true });
    }
}
//# sourceMappingURL=files.js.map