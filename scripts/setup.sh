#!/usr/bin/env bash
# Sets up a fresh machine for docevals: pnpm (pinned), redis-server for the Redis adapter's tests (Debian package,
# only when missing and no REDIS_URL is given), postgresql for the Postgres adapter's tests (likewise, unless
# DATABASE_URL is given), and the workspace's dependencies from the lockfile.
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

if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
  && ! [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; then
  echo "setup: installing postgresql (Debian package) for the Postgres tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi

pnpm install --frozen-lockfile
