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

/** What may wait in memory for a log reader that does not read; lines past it are dropped and counted. */
const maxQueuedLogBytes = 16 * 1024 * 1024;

interface StdoutLog {
  destination: DestinationStream;
  /** Resolves once queued lines are written, the reader is gone, or `timeoutMs` passed. */
  written(timeoutMs: number): Promise<void>;
}

let stdoutLog: StdoutLog | undefined;

/**
 * Log lines on process.stdout, never blocking and never failing the process.
 *
 * Not pino's default destination: that one (sonic-boom, asynchronous) flushes
 * synchronously in a process 'exit' hook, and sonic-boom's flushSync retries
 * forever, sleeping the main thread, on EAGAIN (a reader that stopped reading)
 * and on EPIPE (a reader that went away before an asynchronous write noticed).
 * A `tally serve` whose log pipe was stalled, then closed, finished stopping,
 * closed its listener and hung in that hook; signals were never handled again.
 * process.stdout queues what a full pipe cannot take without blocking, and
 * Node does not wait for that queue at exit.
 */
function stdoutLogOnce(): StdoutLog {
  if (stdoutLog) return stdoutLog;
  const out = process.stdout;
  let gone = false;
  let dropped = 0;
  // EPIPE (the reader went away) and any other write error: nobody can read the logs any more; drop them from now on.
  out.on('error', () => {
    gone = true;
  });
  out.on('drain', () => {
    if (dropped === 0 || gone) return;
    const line = { level: 'warn', time: new Date().toISOString(), service: 'tally', dropped, msg: 'dropped log lines: the log reader did not keep up' };
    dropped = 0;
    out.write(`${JSON.stringify(line)}\n`);
  });
  const destination: DestinationStream = {
    write(line: string): void {
      if (gone) return;
      if (out.writableLength > maxQueuedLogBytes) {
        dropped += 1;
        return;
      }
      try {
        out.write(line);
      } catch {
        // A file destination (SyncWriteStream) throws instead of emitting: a log line must not fail the request that logged it.
        gone = true;
      }
    },
  };
  const written = async (timeoutMs: number): Promise<void> => {
    if (gone || out.writableLength === 0) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        out.off('drain', done);
        out.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      out.once('drain', done);
      out.once('error', done);
    });
  };
  stdoutLog = { destination, written };
  return stdoutLog;
}

/**
 * Waits (at most `timeoutMs`) for log lines still queued for stdout, so that
 * the last lines before an exit reach a slow reader. Never longer: a reader
 * that is stalled or gone must not keep a stopping process alive.
 */
export async function logsWritten(timeoutMs: number): Promise<void> {
  await stdoutLog?.written(timeoutMs);
}

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
  return pino(options, destination ?? stdoutLogOnce().destination);
}
