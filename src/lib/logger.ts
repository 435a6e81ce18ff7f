import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Secrets must never reach the logs: authorization headers, cookies, and any
 * field that carries a password, key or token.
 */
const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.key',
  '*.token',
  'headers.authorization',
  'headers.cookie',
];

/**
 * The root logger: JSON lines on stdout (pipe through pino-pretty to read
 * them by eye), or on `destination` (tests read what was logged).
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'tally', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
