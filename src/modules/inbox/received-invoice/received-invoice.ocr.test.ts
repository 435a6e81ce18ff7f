import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { readFile, stopOcrEngine, UnreadableFile } from './received-invoice.ocr.js';

afterAll(async () => {
  await stopOcrEngine();
});

describe('OCR of a PDF page', () => {
  it('reads a page that declares 200 inches square, drawn at most as large as an A4 page at 300 dpi (not on a canvas of gigabytes, nor refused)', async () => {
    const document = await PDFDocument.create();
    // 14,400 points: at the render scale of 2 a canvas of 28,800 pixels square, 3.3 GB.
    document.addPage([14_400, 14_400]);
    const pdf = Buffer.from(await document.save());
    let peak = process.memoryUsage.rss();
    const before = peak;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    try {
      // Drawn and read (a blank page has no text to find), not refused for its size, within the memory.
      await expect(readFile(pdf, 'application/pdf')).rejects.toThrow(new UnreadableFile('No text was found in the file'));
    } finally {
      clearInterval(sampler);
    }
    expect((peak - before) / 1024 / 1024).toBeLessThan(400);
  }, 60_000);
});
