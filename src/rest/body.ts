/**
 * Request bodies, read with their limits applied while they stream in: JSON
 * (1 MiB) for REST and GraphQL, multipart uploads (20 MiB) for the routes
 * that take files. Nothing over a limit is ever held in memory.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Busboy } from '@fastify/busboy';
import { nulByteMessage } from '../lib/nul-bytes.js';
import { AppError, validationFailed } from '../lib/errors.js';

/** JSON bodies (REST and GraphQL) are limited to 1 MiB. */
export const jsonBodyLimit = 1024 * 1024;
/** Uploaded files are limited to 20 MiB. */
export const uploadLimit = 20 * 1024 * 1024;
/** Text fields beside an uploaded file: few and short. */
const multipartFieldLimit = { count: 30, bytes: 16 * 1024 };

const mebibytes = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export const payloadTooLarge = (limit: number): AppError => new AppError('PAYLOAD_TOO_LARGE', `The body is larger than ${mebibytes(limit)}`);

/**
 * The client closed its connection before we could answer: nothing to answer,
 * nothing wrong here. Told by the client's own socket and request, never by
 * an error's code: a database connection reset is an ECONNRESET too, and its
 * client is still waiting for a 503.
 */
export function clientWentAway(request: IncomingMessage): boolean {
  return request.socket.destroyed || (request.destroyed && !request.complete);
}

/**
 * Reads the whole body, refusing it as soon as it passes `limit` bytes (the
 * rest is not read: the answer closes the connection). Read with listeners
 * rather than `for await`, whose iterator costs a promise per chunk and
 * end-of-stream bookkeeping on every request that has a body.
 */
export function readBody(request: IncomingMessage, limit = jsonBodyLimit): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(payloadTooLarge(limit));
  if (request.readableEnded) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limit) {
        stop();
        request.pause();
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    }
    function onEnd(): void {
      stop();
      resolve(size === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    }
    function onError(error: Error): void {
      stop();
      reject(error);
    }
    // A client that goes away mid-body: 'close' without 'end' (clientWentAway() tells it apart afterwards).
    function onClose(): void {
      stop();
      reject(new Error('the request closed before its body ended'));
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

export function mediaTypeOf(contentType: string | undefined): string {
  return contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
}

export function isJson(contentType: string | undefined): boolean {
  const mediaType = mediaTypeOf(contentType);
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** One uploaded file as it streams in. Its consumer must read or destroy the stream. */
export interface IncomingFile {
  field: string;
  /** The name the client gave, without any path. */
  fileName: string;
  /** What the client claims; check the content instead. */
  declaredType: string;
  stream: Readable;
}

export interface MultipartOptions<FileResult> {
  /** The form field that carries the file; any other file field is refused. */
  fileField: string;
  /** Largest file accepted. */
  maxFileBytes?: number;
  /** Consumes the file as it arrives (hash it, store it); its error ends the upload. */
  onFile: (file: IncomingFile) => Promise<FileResult>;
  /** Undoes what `onFile` kept when the form fails after the file (a bad field, a broken tail). */
  release?: (file: FileResult) => Promise<void>;
}

export interface MultipartResult<FileResult> {
  /** Text fields, by name (the last one wins when a name repeats). */
  fields: Record<string, string>;
  /** What `onFile` returned, or undefined when the form had no file. */
  file: FileResult | undefined;
}

/**
 * Parses a `multipart/form-data` body with busboy, streaming the one file to
 * `onFile`. Over the size limit the upload stops at once with 413; the
 * consumer's stream is destroyed, so it can clean up what it wrote.
 */
export async function readMultipart<FileResult>(
  request: IncomingMessage,
  { fileField, maxFileBytes = uploadLimit, onFile, release }: MultipartOptions<FileResult>,
): Promise<MultipartResult<FileResult>> {
  const contentType = request.headers['content-type'] ?? '';
  if (mediaTypeOf(contentType) !== 'multipart/form-data') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the body as multipart/form-data with the file in "${fileField}"`);
  }
  const bodyLimit = maxFileBytes + multipartFieldLimit.count * multipartFieldLimit.bytes;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > bodyLimit) throw payloadTooLarge(maxFileBytes);
  // Loaded by the first upload, not by every API process. The body waits meanwhile: nothing reads it yet.
  const { Busboy: createParser } = await import('@fastify/busboy');

  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Promise<FileResult> | undefined;
    let currentStream: Readable | undefined;
    let received = 0;
    let settled = false;
    let parser: ReturnType<typeof Busboy>;

    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      request.off('data', count);
      request.unpipe(parser);
      currentStream?.destroy(error instanceof Error ? error : new Error(String(error)));
      parser.destroy();
      if (release) file?.then(release, () => undefined).catch(() => undefined);
      reject(error);
    };
    function count(chunk: Buffer): void {
      received += chunk.length;
      if (received > bodyLimit) fail(payloadTooLarge(maxFileBytes));
    }

    try {
      parser = createParser({
        headers: { ...request.headers, 'content-type': contentType },
        limits: {
          files: 1,
          fileSize: maxFileBytes,
          fields: multipartFieldLimit.count,
          fieldSize: multipartFieldLimit.bytes,
          parts: multipartFieldLimit.count + 1,
        },
      });
    } catch (error) {
      reject(new AppError('BAD_REQUEST', `The multipart body cannot be read: ${(error as Error).message}`));
      return;
    }

    parser.on('file', (field, stream, fileName, _encoding, declaredType) => {
      if (field !== fileField) {
        stream.resume();
        fail(validationFailed([{ path: field, message: `is not a file field; send the file as "${fileField}"` }]));
        return;
      }
      currentStream = stream;
      // fail() destroys the stream with the upload's error. A consumer that failed before it piped the stream
      // (its storage refused the file) no longer listens, and an 'error' nobody hears ends the process.
      stream.on('error', () => undefined);
      stream.once('limit', () => fail(payloadTooLarge(maxFileBytes)));
      file = onFile({ field, fileName, declaredType, stream });
      file.catch(fail);
    });
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) {
        fail(validationFailed([{ path: name, message: `must be at most ${multipartFieldLimit.bytes} bytes` }]));
        return;
      }
      if (value.includes('\u0000') || name.includes('\u0000')) {
        fail(validationFailed([{ path: name.replaceAll('\u0000', '\\u0000'), message: nulByteMessage }]));
        return;
      }
      fields[name] = value;
    });
    const tooMany = (): void => fail(new AppError('BAD_REQUEST', `A form may carry one file and at most ${multipartFieldLimit.count} fields`));
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', (error: unknown) =>
      fail(error instanceof AppError ? error : new AppError('BAD_REQUEST', `The multipart body is malformed: ${(error as Error).message}`)),
    );
    parser.on('finish', () => {
      (file ?? Promise.resolve(undefined)).then((result) => {
        if (settled) return;
        settled = true;
        resolve({ fields, file: result });
      }, fail);
    });
    request.on('data', count);
    request.on('aborted', () => fail(new AppError('BAD_REQUEST', 'The upload was interrupted')));
    request.pipe(parser);
  });
}
