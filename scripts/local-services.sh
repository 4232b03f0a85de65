#!/usr/bin/env bash
# `npm run image:local-services`: builds the local stand-ins for the official postgres and haproxy
# images that compose.yaml runs (container/local/: Debian's PostgreSQL 15 and HAProxy 2.6 on the
# local base of scripts/base-image.sh, made first when missing), for machines that reach no
# container registry. Tags $POSTGRES_IMAGE (default localhost/book-service-postgres) and
# $HAPROXY_IMAGE (default localhost/book-service-haproxy); give compose.yaml the same two variables.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/podman.sh
require_packages podman runc

POSTGRES_IMAGE=${POSTGRES_IMAGE:-localhost/book-service-postgres}
HAPROXY_IMAGE=${HAPROXY_IMAGE:-localhost/book-service-haproxy}
podman image exists "$BASE_IMAGE" || scripts/base-image.sh

# build NAME TAG: container/local/NAME.Containerfile as TAG.
build() {
  podman build --quiet --layers=false --network host --build-arg BASE_IMAGE="$BASE_IMAGE" \
    --file "container/local/$1.Containerfile" --tag "$2" container/local >/dev/null
}
build postgres "$POSTGRES_IMAGE"
build haproxy "$HAPROXY_IMAGE"
echo "local images: $POSTGRES_IMAGE and $HAPROXY_IMAGE (compose.yaml's POSTGRES_IMAGE and HAPROXY_IMAGE)"
