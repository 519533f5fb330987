#!/usr/bin/env bash
# Debian's Chromium for the browser tests (Playwright's own browser download
# does not work offline), and a CJK font so the Japanese page renders (without
# one every Japanese character is an empty box). Needs root or sudo.
set -euo pipefail
if [ -x /usr/bin/chromium ] && fc-list :lang=ja 2>/dev/null | grep -q .; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk
