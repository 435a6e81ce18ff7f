/**
 * What the tests use beyond npm packages, from Debian's packages (as root,
 * `npm run test:services` installs them: test/services/tools.sh), made ready
 * once before any test file runs, so that `npm ci && npm test` is the whole
 * command. The PDF readers (poppler's pdftotext, pdfdetach, pdfinfo) and the
 * e-invoice validator's tools (Java, Saxon-HE, xmllint) must be there: the
 * file tests read every PDF with them and run the official rules on every
 * e-invoice. Dovecot is started when it is installed; when it is not, the sync
 * tests fail saying what to install.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dovecotInstalled, ensureImapServer } from '../helpers/imap.js';

const installs =
  "run 'sudo apt-get install -y poppler-utils dovecot-imapd default-jre-headless libsaxonhe-java libxml2-utils' (as root: npm run test:services)";

/** Whether `command` is on the PATH (some, like pdfdetach, have no option that exits 0 without work). */
const onPath = (command: string): boolean =>
  (process.env.PATH ?? '').split(path.delimiter).some((directory) => directory !== '' && fs.existsSync(path.join(directory, command)));

/** Checks for the PDF readers and the validator's tools and starts Dovecot when it is installed; throws, saying what to install, when a tool is missing. */
export function startTestServices(): void {
  const missing = [
    ...['pdftotext', 'pdfdetach', 'pdfinfo', 'java', 'xmllint'].filter((command) => !onPath(command)),
    ...(fs.existsSync('/usr/share/java/Saxon-HE.jar') ? [] : ['Saxon-HE']),
  ];
  if (missing.length > 0) throw new Error(`The tests need ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed: ${installs}.`);
  if (dovecotInstalled()) ensureImapServer();
}
