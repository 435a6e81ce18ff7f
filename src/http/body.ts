import type { IncomingMessage } from 'node:http';
import { AppError } from '../lib/errors.js';

/** JSON bodies (REST and GraphQL) are limited to 1 MiB (CONTRACT.md section 7). */
export const jsonBodyLimit = 1024 * 1024;

const tooLarge = (limit: number): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit / 1024 / 1024} MiB`);

/** Reads the whole body, refusing it as soon as it passes `limit` bytes. */
export async function readBody(request: IncomingMessage, limit = jsonBodyLimit): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(buffer);
  }
  return size === 0 ? undefined : Buffer.concat(chunks, size);
}
