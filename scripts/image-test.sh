#!/usr/bin/env bash
# `npm run test:image`: lints the Containerfiles (dockerfile-utils, the npm registry) and the
# container scripts (shellcheck, Debian), builds the base when missing and the image
# (scripts/image.sh), then runs the container tests (container/test/): the image on its own with
# a named volume, and compose.yaml's two instances on PostgreSQL behind HAProxy, with local images
# of Debian's PostgreSQL and HAProxy in place of the official ones. Each test file removes what it
# started (containers, volumes, the network, the local images it built), failed or not.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/podman.sh
require_packages podman runc podman-compose shellcheck
export BASE_IMAGE IMAGE

# dockerfile-utils exits 0 on warnings: any line it prints is a finding.
for file in Containerfile container/local/*.Containerfile; do
  findings=$(node_modules/.bin/dockerfile-utils lint "$file")
  if [ -n "$findings" ]; then
    printf '%s:\n%s\n' "$file" "$findings"
    exit 1
  fi
done
shellcheck --external-sources scripts/*.sh container/local/*.sh
echo "lint: Containerfiles and container scripts clean"

scripts/image.sh
node --import tsx --test --test-reporter=spec --test-concurrency=1 'container/test/*.test.ts'
