/**
 * Reading an invoice's file: PDFs by their text layer when a page has one
 * and by rendering the page (pdfjs-dist on @napi-rs/canvas) when it is
 * scanned; images directly. Recognition is tesseract.js with the English data
 * from the npm package (no download), in one worker created on first use and
 * reused by every job of the process, terminated when the workers stop.
 *
 * A file that cannot be read is an `UnreadableFile` with words for the
 * uploader; the job records it as `ocr_failed` and the worker goes on.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Scheduler } from 'tesseract.js';
import { extractFields, type ExtractedFields } from './received-invoice.extract.js';

export type { ExtractedFields };

const require = createRequire(import.meta.url);
const languageData = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

/** Pages read of one PDF: a longer one is refused, not read for minutes. */
export const maxPdfPages = 20;
/** Rendering scale of a scanned page (2 = about 150 dpi for an A4 page, what tesseract reads best). */
const renderScale = 2;
/**
 * Pixels a rendered page (and an image in it) may have: an A4 page at 300 dpi.
 * A page or image that declares more is drawn smaller, or not at all, so a
 * PDF cannot ask for a canvas of gigabytes (docs/decisions.md, "Hostile files").
 */
const maxPagePixels = 2480 * 3508;
/** A page with fewer characters in its text layer than this is treated as scanned. */
const textLayerMinimum = 20;

/** A file that cannot be read; the message is for the uploader. */
export class UnreadableFile extends Error {}

export interface ReadResult {
  text: string;
  /** Mean word confidence 0..100; 100 for a text layer. */
  confidence: number;
  fields: ExtractedFields;
}

let engine: Promise<Scheduler> | undefined;

function ocrEngine(): Promise<Scheduler> {
  engine ??= (async () => {
    // Loaded on first use: API processes, which never read a file, do not carry tesseract.js.
    const { createScheduler, createWorker, OEM, PSM } = await import('tesseract.js');
    const scheduler = createScheduler();
    const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: languageData, gzip: true, cacheMethod: 'none' });
    // Without a resolution tesseract guesses one per page and says so on stderr.
    await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, preserve_interword_spaces: '1', user_defined_dpi: '300' });
    scheduler.addWorker(worker);
    return scheduler;
  })();
  return engine;
}

/** Ends the OCR worker thread (the process could not exit otherwise). */
export async function stopOcrEngine(): Promise<void> {
  const running = engine;
  engine = undefined;
  if (running) await (await running).terminate();
}

async function recognise(image: Buffer): Promise<{ text: string; confidence: number }> {
  const { data } = await (await ocrEngine()).addJob('recognize', image);
  return { text: data.text, confidence: data.confidence };
}

interface PdfjsError {
  name?: string;
  code?: number;
  message?: string;
}

function unreadablePdf(error: unknown): UnreadableFile {
  const { name, message } = (error ?? {}) as PdfjsError;
  if (name === 'PasswordException') return new UnreadableFile('The PDF is password-protected; upload it without a password');
  if (name === 'InvalidPDFException') return new UnreadableFile(`The PDF is damaged or not a PDF (${message ?? 'invalid structure'})`);
  return new UnreadableFile(`The PDF cannot be read: ${message ?? String(error)}`);
}

/** Each page's text: its text layer, or OCR of the rendered page. */
async function readPdf(bytes: Buffer): Promise<{ text: string; confidence: number }> {
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const { createCanvas } = await import('@napi-rs/canvas');
  const task = getDocument({
    // A copy: pdfjs refuses a Buffer and detaches the array it is given.
    data: new Uint8Array(bytes),
    verbosity: VerbosityLevel.ERRORS,
    isEvalSupported: false,
    disableFontFace: true,
    maxImageSize: maxPagePixels,
    canvasMaxAreaInBytes: maxPagePixels * 4,
    useSystemFonts: false,
    standardFontDataUrl: `${path.join(pdfjsRoot, 'standard_fonts')}/`,
    cMapUrl: `${path.join(pdfjsRoot, 'cmaps')}/`,
    cMapPacked: true,
    wasmUrl: `${path.join(pdfjsRoot, 'wasm')}/`,
    iccUrl: `${path.join(pdfjsRoot, 'iccs')}/`,
  });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw unreadablePdf(error);
  }
  try {
    if (document.numPages > maxPdfPages) {
      throw new UnreadableFile(`The PDF has ${document.numPages} pages; OCR reads invoices of at most ${maxPdfPages}`);
    }
    const pages: string[] = [];
    const confidences: number[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
        .join('')
        .replace(/[ \t]+\n/g, '\n')
        .trim();
      if (text.replace(/\s/g, '').length >= textLayerMinimum) {
        pages.push(text);
        confidences.push(100);
      } else {
        const natural = page.getViewport({ scale: 1 });
        const scale = Math.min(renderScale, Math.sqrt(maxPagePixels / Math.max(1, natural.width * natural.height)));
        const viewport = page.getViewport({ scale });
        // The same @napi-rs/canvas pdfjs loads for itself (one copy: two would crash the process).
        const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
        await page.render({ canvas: canvas as never, canvasContext: canvas.getContext('2d') as never, viewport, background: '#ffffff' }).promise;
        const read = await recognise(canvas.toBuffer('image/png'));
        pages.push(read.text);
        confidences.push(read.confidence);
      }
      page.cleanup();
    }
    const confidence = confidences.length > 0 ? confidences.reduce((sum, value) => sum + value, 0) / confidences.length : 0;
    return { text: pages.join('\n\f\n'), confidence };
  } catch (error) {
    throw error instanceof UnreadableFile ? error : unreadablePdf(error);
  } finally {
    await document.destroy();
  }
}

/** The text of a file of an upload type, and the fields found in it. */
export async function readFile(bytes: Buffer, mimeType: string): Promise<ReadResult> {
  let read: { text: string; confidence: number };
  if (mimeType === 'application/pdf') {
    read = await readPdf(bytes);
  } else {
    try {
      read = await recognise(bytes);
    } catch (error) {
      throw new UnreadableFile(`The image cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const text = read.text.trim();
  if (text.length === 0) throw new UnreadableFile('No text was found in the file');
  return { text, confidence: Math.round(read.confidence * 10) / 10, fields: extractFields(text) };
}
