#!/usr/bin/env bash
# Sets up a fresh machine for docevals: pnpm (pinned), redis-server for the Redis adapter's tests (Debian package,
# only when missing and no REDIS_URL is given), and the workspace's dependencies from the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

if [ -z "${REDIS_URL:-}" ] && ! command -v redis-server >/dev/null 2>&1; then
  echo "setup: installing redis-server (Debian package) for the Redis tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi

# A font for the pages the OpenAI extractor draws in modality image (text documents, PDFs' non-embedded fonts).
if [ -z "$(find /usr/share/fonts /usr/local/share/fonts -name '*.ttf' -print -quit 2>/dev/null)" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing fonts-dejavu-core (Debian package) for rendered pages"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fonts-dejavu-core >/dev/null
fi

# curl and jq: the README's curl walk-through uses them, and a test runs it as written.
MISSING_TOOLS=""
for tool in curl jq; do command -v "$tool" >/dev/null 2>&1 || MISSING_TOOLS="$MISSING_TOOLS $tool"; done
if [ -n "$MISSING_TOOLS" ]; then
  echo "setup: installing$MISSING_TOOLS (Debian packages) for the README's curl walk-through"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $MISSING_TOOLS >/dev/null
fi

pnpm install --frozen-lockfile
