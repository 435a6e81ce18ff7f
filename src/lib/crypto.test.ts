import { describe, expect, it } from 'vitest';
import { createSecretBox } from './crypto.js';

describe('the secret box', () => {
  const box = createSecretBox('test-encryption-key-0123456789abcdefghijkl');

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('whsec_c2VjcmV0');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('c2VjcmV0');
    expect(box.open(sealed)).toBe('whsec_c2VjcmV0');
    expect(box.seal('whsec_c2VjcmV0')).not.toBe(sealed);
  });

  it('refuses text sealed with another key, or changed', () => {
    const sealed = box.seal('imap-password');
    expect(() => createSecretBox('another-encryption-key-0123456789abcdefgh').open(sealed)).toThrow();
    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
    const flipped = `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`;
    expect(() => box.open([version, iv, tag, flipped].join('.'))).toThrow();
    expect(() => box.open('plain text')).toThrow('not a sealed secret');
  });
});
