#!/usr/bin/env bash
# Sets up a fresh machine for docevals: pnpm (pinned), the Debian packages the tests and the README use (only those
# missing, in one apt-get run), and the workspace's dependencies from the lockfile.
# - redis-server: the Redis adapter's tests start their own (unless REDIS_URL is given);
# - postgresql: the Postgres adapter's tests run initdb and start their own (unless DATABASE_URL is given);
# - fonts-dejavu-core: a font for the pages the OpenAI extractor draws in modality image, when the machine has none;
# - curl and jq: the README's curl walk-through uses them, and a test runs it as written;
# - chromium: the web app's end-to-end tests (Playwright) drive Debian's Chromium; no browser is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

PACKAGES=()
if [ -z "${REDIS_URL:-}" ] && ! command -v redis-server >/dev/null 2>&1; then PACKAGES+=(redis-server); fi
if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
  && ! [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; then PACKAGES+=(postgresql); fi
if [ -z "$(find /usr/share/fonts /usr/local/share/fonts -name '*.ttf' -print -quit 2>/dev/null)" ]; then PACKAGES+=(fonts-dejavu-core); fi
for tool in curl jq; do command -v "$tool" >/dev/null 2>&1 || PACKAGES+=("$tool"); done
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then PACKAGES+=(chromium); fi

if [ ${#PACKAGES[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: please install ${PACKAGES[*]} (no apt-get on this machine)" >&2
    exit 1
  fi
  echo "setup: installing ${PACKAGES[*]} (Debian packages)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
fi

# Playwright drives the system's Chromium (above): its own browser download is skipped.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 pnpm install --frozen-lockfile

# The `docevals` command: built into packages/cli/dist from the sources (esbuild, a few seconds), then put on the
# PATH as a link in npm's global bin folder (where `npm link` would put it), so `docevals --help` works from any
# folder. Where that folder is not writable, say how to run it instead.
node scripts/build-cli.mjs
BIN_DIR="$(npm prefix -g)/bin"
if ln -sf "$PWD/packages/cli/dist/cli.js" "$BIN_DIR/docevals" 2>/dev/null; then
  echo "setup: docevals -> $BIN_DIR/docevals"
else
  echo "setup: cannot write $BIN_DIR: run the CLI as 'node $PWD/packages/cli/dist/cli.js', or link it yourself:" >&2
  echo "  sudo ln -sf '$PWD/packages/cli/dist/cli.js' '$BIN_DIR/docevals'" >&2
fi
