import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt } from 'node:crypto';

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

/**
 * Encryption at rest of secrets we must read back (webhook signing secrets,
 * IMAP passwords): AES-256-GCM under a key derived from ENCRYPTION_KEY.
 * Sealed text is `v1.<iv>.<tag>.<ciphertext>` (base64url), so a later key
 * scheme can sit beside this one.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** The plaintext; throws when the text was not sealed with this key. */
  open(sealed: string): string;
}

export function createSecretBox(encryptionKey: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', encryptionKey, 'tally', 'secrets at rest v1', 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error('not a sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
