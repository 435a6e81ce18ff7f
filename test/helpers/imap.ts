/**
 * A real IMAP server for the sync tests: Dovecot on loopback, started by
 * test/services/imap-server.sh when `npm test` starts (Debian's
 * dovecot-imapd, which `npm run test:services` installs as root). Any
 * user name signs in with the one password, so each test takes a user of
 * its own and gets an empty mailbox.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

export const imapHost = '127.0.0.1';
export const imapPort = Number(process.env.IMAP_PORT ?? 10143);
export const imapPassword = process.env.IMAP_PASSWORD ?? 'secret';

/** Whether Dovecot is installed: on the PATH, or where Debian puts it (/usr/sbin, not on every user's PATH). */
export function dovecotInstalled(): boolean {
  const directories = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin'];
  return directories.some((directory) => directory !== '' && fs.existsSync(path.join(directory, 'dovecot')));
}

/** The script waits up to 10 s for Dovecot to listen; past this, something holds it (the run fails rather than hangs). */
const startTimeoutMs = 30_000;

/** Starts the server unless it runs (quick when it does); fails with what to do when Dovecot is missing. */
export function ensureImapServer(): void {
  const script = path.resolve(import.meta.dirname, '../services/imap-server.sh');
  try {
    execFileSync('bash', [script, 'start'], {
      stdio: 'pipe',
      timeout: startTimeoutMs,
      env: { ...process.env, IMAP_PORT: String(imapPort), IMAP_PASSWORD: imapPassword },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
      throw new Error(
        `test/services/imap-server.sh start did not return in ${startTimeoutMs / 1000} s (Dovecot's start-up output: ${process.env.IMAP_DIR ?? '/tmp/tally-imap'}/log/start.log)`,
      );
    }
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(
      `The IMAP tests need Dovecot on 127.0.0.1:${imapPort}: install Debian's dovecot-imapd (as root, \`npm run test:services\` does).\n${output}`,
    );
  }
}

/** A user nobody has used: an empty mailbox. */
export const freshImapUser = (): string => `sync-${randomUUID()}`;

/** A signed-in client of `user`, to put messages in place. */
export async function imapClient(user: string): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: imapHost,
    port: imapPort,
    secure: false,
    auth: { user, pass: imapPassword },
    logger: false,
    disableAutoIdle: true,
  } as ConstructorParameters<typeof ImapFlow>[0]);
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

export interface Attachment {
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** An RFC 5322 message with base64 attachments, CRLF line ends. */
export function mailMessage({
  from,
  subject,
  messageId = `<${randomUUID()}@vendor.test>`,
  attachments = [],
}: {
  from: string;
  subject: string;
  messageId?: string;
  attachments?: Attachment[];
}): Buffer {
  const boundary = `tally-${randomUUID()}`;
  const lines = [
    `From: ${from}`,
    'To: invoices@tally.test',
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Please find our invoice attached.',
  ];
  for (const attachment of attachments) {
    lines.push(
      `--${boundary}`,
      `Content-Type: ${attachment.contentType}; name="${attachment.fileName}"`,
      'Content-Transfer-Encoding: base64',
      `Content-Disposition: attachment; filename="${attachment.fileName}"`,
      '',
      attachment.content
        .toString('base64')
        .replace(/.{1,76}/g, '$&\r\n')
        .trimEnd(),
    );
  }
  lines.push(`--${boundary}--`, '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}
