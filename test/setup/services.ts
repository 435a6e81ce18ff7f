/**
 * What the tests use beyond npm packages, from Debian's packages (as root,
 * `npm run test:services` installs them: test/services/tools.sh), made ready
 * once before any test file runs, so that `npm ci && npm test` is the whole
 * command. pdftotext must be there: the PDF tests read every export with it.
 * Dovecot is started when it is installed; when it is not, the sync tests
 * fail saying what to install.
 */
import { execFileSync } from 'node:child_process';
import { dovecotInstalled, ensureImapServer } from '../helpers/imap.js';

/** Checks for pdftotext and starts Dovecot when it is installed; throws, saying what to install, without pdftotext. */
export function startTestServices(): void {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      "The tests read PDFs with pdftotext, which is not installed: run 'sudo apt-get install -y poppler-utils dovecot-imapd' (as root: npm run test:services).",
    );
  }
  if (dovecotInstalled()) ensureImapServer();
}
