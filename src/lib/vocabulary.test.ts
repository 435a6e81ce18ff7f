import { describe, expect, it } from 'vitest';
import { defineEnum } from './vocabulary.js';

describe('a vocabulary', () => {
  it('takes its values from a Prisma enum object or a list, in order', () => {
    expect(defineEnum('VocabularyTestColour', { red: 'red', green: 'green' }).values).toEqual(['red', 'green']);
    expect(defineEnum('VocabularyTestSize', ['small', 'large']).values).toEqual(['small', 'large']);
  });

  it('validates with a message that lists the values', () => {
    const schema = defineEnum('VocabularyTestShape', ['round', 'square']).schema();
    expect(schema.parse('round')).toBe('round');
    expect(schema.safeParse('oval').error?.issues[0]?.message).toBe('must be one of: round, square');
  });

  it('may be defined again with the same values, and stops the process when the values differ', () => {
    defineEnum('VocabularyTestState', ['on', 'off']);
    expect(() => defineEnum('VocabularyTestState', ['on', 'off'])).not.toThrow();
    expect(() => defineEnum('VocabularyTestState', ['on', 'off', 'broken'])).toThrow(
      'enum VocabularyTestState is defined twice with different values: on, off and on, off, broken',
    );
  });
});
