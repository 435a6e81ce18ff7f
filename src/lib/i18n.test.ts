import { describe, expect, it } from 'vitest';
import { catalogues, documentLocale, supportedLanguageTag } from './i18n.js';

/** Every key of a catalogue, as i18next names it (`facts.dueDate`). */
const keysOf = (catalogue: object, prefix = ''): string[] =>
  Object.entries(catalogue).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keysOf(value as object, `${prefix}${key}.`) : [`${prefix}${key}`],
  );

describe('the message catalogues', () => {
  const all = new Set(Object.values(catalogues).flatMap((catalogue) => keysOf(catalogue)));

  it.each(Object.keys(catalogues))('%s has every key any catalogue has, each a text', (language) => {
    const locale = documentLocale(language);
    const missing = [...all].filter((key) => {
      try {
        return locale.t(key).trim() === '';
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });

  it('throws on a key no catalogue has, instead of printing the key', () => {
    expect(() => documentLocale('de').t('document.nothing')).toThrow(/lacks "document.nothing"/);
  });

  it('takes BCP 47 tags of languages with a catalogue, canonical, and nothing else', () => {
    expect(supportedLanguageTag('DE-at')).toBe('de-AT');
    expect(supportedLanguageTag('fr')).toBe('fr');
    expect(supportedLanguageTag('xx')).toBeNull();
    expect(supportedLanguageTag('not a tag')).toBeNull();
  });
});
