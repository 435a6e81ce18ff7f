#!/usr/bin/env bash
# Command-line tools the tests read Tally's output with, from Debian's packages:
# pdftotext (poppler-utils) reads the PDF exports of reports as an independent reader.
# Works as root (CI installs what is missing) and as an ordinary user (told what to install).
set -euo pipefail

missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; }
else
  echo "missing test tools: run 'sudo apt-get install -y ${missing[*]}'" >&2
  exit 1
fi
