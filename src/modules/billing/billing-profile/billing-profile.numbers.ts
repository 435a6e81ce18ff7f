/**
 * Invoice numbers from the profile's pattern: literal text and the tokens
 * `{YYYY}`, `{YY}`, `{MM}` (of the issue date) and exactly one `{SEQ:n}`,
 * the sequence zero-padded to n digits (1..10; a longer sequence is not
 * cut). Numbers count per tenant and year when the pattern has a year, and
 * once for the tenant when it has none (counter year 0). Pure: the counter
 * itself is the client-invoice service's.
 */

const tokenPattern = /\{([^{}]*)\}/g;
const yearTokens = new Set(['YYYY', 'YY']);
const sequenceToken = /^SEQ:(\d+)$/;

/** The longest pattern a profile keeps. */
export const numberPatternMaxLength = 60;

/** Why `pattern` cannot make numbers, or null when it can. */
export function numberPatternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > numberPatternMaxLength) return `must be 1 to ${numberPatternMaxLength} characters`;
  let sequences = 0;
  for (const [, token = ''] of pattern.matchAll(tokenPattern)) {
    const sequence = sequenceToken.exec(token);
    if (sequence) {
      const digits = Number(sequence[1]);
      if (digits < 1 || digits > 10) return `{${token}}: the sequence takes 1 to 10 digits`;
      sequences += 1;
    } else if (!yearTokens.has(token) && token !== 'MM') {
      return `{${token}} is not a token (use {YYYY}, {YY}, {MM} and {SEQ:n})`;
    }
  }
  if (/[{}]/.test(pattern.replace(tokenPattern, ''))) return 'has an unmatched { or }';
  if (sequences !== 1) return sequences === 0 ? 'must contain {SEQ:n}, the running number (e.g. {YYYY}-{SEQ:4})' : 'must contain {SEQ:n} once';
  if (/\p{Cc}/u.test(pattern)) return 'must not contain control characters';
  return null;
}

/** Whether numbers of `pattern` count per year (it shows the year), or once for all years. */
export const countsPerYear = (pattern: string): boolean => /\{YYYY\}|\{YY\}/.test(pattern);

/** The counter a number of `pattern` issued on `issueDate` (`YYYY-MM-DD`) is drawn from: its year, or 0. */
export const counterYear = (pattern: string, issueDate: string): number => (countsPerYear(pattern) ? Number(issueDate.slice(0, 4)) : 0);

/** The number `sequence` of `pattern`, issued on `issueDate` (`YYYY-MM-DD`). */
export function formatNumber(pattern: string, issueDate: string, sequence: number): string {
  return pattern.replace(tokenPattern, (_whole, token: string) => {
    if (token === 'YYYY') return issueDate.slice(0, 4);
    if (token === 'YY') return issueDate.slice(2, 4);
    if (token === 'MM') return issueDate.slice(5, 7);
    const digits = Number(sequenceToken.exec(token)?.[1] ?? 1);
    return String(sequence).padStart(digits, '0');
  });
}
