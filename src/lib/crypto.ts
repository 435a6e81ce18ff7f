import { createHash, randomInt } from 'node:crypto';

const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (crypto.randomInt avoids modulo bias). */
export function randomBase62(length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += base62Alphabet[randomInt(base62Alphabet.length)];
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
