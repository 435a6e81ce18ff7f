/**
 * Where uploaded files live: addressed by their content (SHA-256), behind a
 * small interface so that an S3-compatible backend can replace the local
 * directory without touching callers.
 *
 * A file arrives as a stream and is staged (written under a temporary name
 * while it is hashed, never held whole in memory); the caller then decides,
 * from the hash and the first bytes, to keep it (it moves to its address) or
 * to discard it. Keys are opaque to callers.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** How many leading bytes a staged file keeps for type sniffing (what `file-type` reads). */
export const sniffBytes = 4100;

export interface StagedFile {
  sha256: string;
  size: number;
  /** The first `sniffBytes` bytes, to tell the type by content. */
  head: Buffer;
  /** Where `keep` puts it: the same bytes always have the same key. */
  key: string;
  /** Streams the staged bytes, for a look beyond the head before deciding (an e-invoice inside a PDF). */
  open(): Readable;
  /** The staged bytes whole (for files small enough to parse, like an XML invoice). */
  read(): Promise<Buffer>;
  /** Moves the file to its content address (`key`). */
  keep(): Promise<void>;
  /** Removes the staged file. */
  discard(): Promise<void>;
}

export interface FileStorage {
  /** Writes `stream` aside while hashing it; the stream's error (a size limit) removes what was written. */
  stage(stream: Readable): Promise<StagedFile>;
  /** Streams a kept file; rejects with `ENOENT` when it is gone. */
  open(key: string): Promise<Readable>;
  /** A kept file whole, for the workers that need it so (OCR). */
  read(key: string): Promise<Buffer>;
  /** Removes a kept file; a missing one is not an error. */
  remove(key: string): Promise<void>;
}

/** Files under `root` (DATA_DIR/files): `sha256/ab/abcdef...`, staged in `root/staging`. */
export function createLocalFileStorage(root: string): FileStorage {
  const staging = path.join(root, 'staging');
  const location = (key: string): string => {
    // Keys are ours (`sha256/xx/<64 hex>`); anything else is refused rather than resolved.
    if (!/^sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(key)) throw new Error(`not a storage key: ${key}`);
    return path.join(root, key);
  };

  return {
    async stage(stream) {
      await fsp.mkdir(staging, { recursive: true });
      const temporary = path.join(staging, randomUUID());
      const hash = createHash('sha256');
      const headChunks: Buffer[] = [];
      let headSize = 0;
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          if (headSize < sniffBytes) {
            const part = chunk.subarray(0, sniffBytes - headSize);
            headChunks.push(part);
            headSize += part.length;
          }
          done(null, chunk);
        },
      });
      try {
        await pipeline(stream, meter, fs.createWriteStream(temporary, { flags: 'wx', mode: 0o640 }));
      } catch (error) {
        await fsp.rm(temporary, { force: true });
        throw error;
      }
      const sha256 = hash.digest('hex');
      const key = `sha256/${sha256.slice(0, 2)}/${sha256}`;
      return {
        sha256,
        size,
        head: Buffer.concat(headChunks),
        key,
        open: () => fs.createReadStream(temporary),
        read: () => fsp.readFile(temporary),
        async keep() {
          const target = location(key);
          await fsp.mkdir(path.dirname(target), { recursive: true });
          // Same content, same name: replacing an existing copy changes nothing.
          await fsp.rename(temporary, target);
        },
        discard: () => fsp.rm(temporary, { force: true }),
      };
    },
    async open(key) {
      const file = await fsp.open(location(key), 'r');
      return file.createReadStream();
    },
    read: (key) => fsp.readFile(location(key)),
    remove: (key) => fsp.rm(location(key), { force: true }),
  };
}
