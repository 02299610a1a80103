#!/usr/bin/env bash
# Builds and installs pgvector into the local PostgreSQL 15 server from Debian
# trixie's source package (bookworm has no binary package for it).
# Idempotent: does nothing when the extension files are already present.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
EXT_DIR="/usr/share/postgresql/${PG_MAJOR}/extension"

if [ -f "${EXT_DIR}/vector.control" ]; then
  echo "pgvector already installed: $(grep default_version "${EXT_DIR}/vector.control")"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive

# Use the same mirror host as the existing apt sources.
mirror_host() {
  local uri
  uri=$(grep -hoE 'https?://[^ /]+/debian(/| |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
        | grep -v -- '-security' | head -n1 | sed -E 's#/debian.*#/debian#')
  echo "${uri:-http://deb.debian.org/debian}"
}

SRC_LIST=/etc/apt/sources.list.d/trixie-src.list
if [ ! -f "$SRC_LIST" ]; then
  echo "deb-src $(mirror_host) trixie main" > "$SRC_LIST"
  echo "added $(cat "$SRC_LIST")"
fi
apt-get update -q
apt-get install -y -q --no-install-recommends build-essential "postgresql-server-dev-${PG_MAJOR}" dpkg-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source --download-only -q pgvector
orig=$(ls pgvector_*.orig.tar.* | head -n1)
mkdir src
tar -xf "$orig" -C src --strip-components=1
cd src
make -s -j"$(nproc)" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
make -s install PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
echo "pgvector installed: $(grep default_version "${EXT_DIR}/vector.control")"
