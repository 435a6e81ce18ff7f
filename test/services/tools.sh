#!/usr/bin/env bash
# The Debian packages the tests use beyond npm packages (`npm run test:services`; CI runs it as root):
#   poppler-utils        pdftotext, pdfdetach and pdfinfo, the independent readers of the PDFs;
#   dovecot-imapd        a real IMAP server for the mailbox sync tests (test/services/imap-server.sh);
#   default-jre-headless, libsaxonhe-java, libxml2-utils
#                        Java, Saxon-HE and xmllint, which ../shared/validation/validate-einvoice runs the
#                        official EN 16931 and XRechnung rules with; xmllint also reads the received
#                        e-invoices' figures independently (test/helpers/einvoices.ts).
# As root it installs what is missing; as anyone else it says what to install. `npm test` starts Dovecot
# itself when it is installed (test/setup/global-setup.ts), and refuses to run without the readers and the validator's tools.
set -euo pipefail

missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
[ -f /usr/share/java/Saxon-HE.jar ] || missing+=(libsaxonhe-java)
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
