#!/usr/bin/env bash
# The Debian packages the tests use beyond npm packages (`npm run test:services`; CI runs it as root):
#   poppler-utils  pdftotext, the independent reader of the PDF exports;
#   dovecot-imapd  a real IMAP server for the mailbox sync tests (test/services/imap-server.sh);
#   libxml2-utils  xmllint, the independent reader of the received e-invoices' figures (test/helpers/einvoices.ts).
# As root it installs what is missing; as anyone else it says what to install. `npm test` starts Dovecot
# itself when it is installed (test/setup/global-setup.ts), and refuses to run without pdftotext.
set -euo pipefail

missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd)
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  # policy-rc.d / no systemd: the packages' own services are not started in containers
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; }
else
  echo "missing test tools: run 'sudo apt-get install -y ${missing[*]}'" >&2
  exit 1
fi
