#!/usr/bin/env bash
# `npm run image`: builds the container image (Containerfile) with Podman on machines that reach
# no container registry: the base is the local stand-in for node:24-bookworm-slim, made first by
# scripts/base-image.sh when it is missing. Tags $IMAGE:latest and $IMAGE:<package.json version>
# (localhost/book-service). Arguments are passed to `podman build`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/podman.sh
require_packages podman runc

podman image exists "$BASE_IMAGE" || scripts/base-image.sh
version=$(node -p 'require("./package.json").version')

# This machine's extra certificate authorities (a TLS proxy in front of the npm registry), for
# npm inside the build: the build secret the Containerfile mounts for `npm ci`.
secret=()
ca=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
[ -f "$ca" ] && secret=(--secret "id=ca-certificates,src=$ca")

previous=$(podman image inspect --format '{{.Id}}' "$IMAGE:latest" 2>/dev/null || true)
# The docker format keeps the HEALTHCHECK, which the OCI image format has no field for. Without
# layer caching every build starts from `npm ci` (about half a minute), and leaves no
# intermediate images behind (the build stage alone is over 700 MB).
podman build --format docker --layers=false --network host \
  --build-arg BASE_IMAGE="$BASE_IMAGE" "${secret[@]}" \
  --label org.opencontainers.image.version="$version" \
  --file Containerfile --tag "$IMAGE:latest" --tag "$IMAGE:$version" "$@" .
current=$(podman image inspect --format '{{.Id}}' "$IMAGE:latest")
# The image these tags named before, unless something else still uses it.
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  podman rmi "$previous" >/dev/null 2>&1 || true
fi
echo "image: $IMAGE:latest and $IMAGE:$version, $(podman image inspect --format '{{.Size}}' "$IMAGE:latest") bytes"
