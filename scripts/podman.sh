# shellcheck shell=bash
# Sourced by the container scripts (scripts/base-image.sh, scripts/image.sh, scripts/image-test.sh):
# installs the Debian packages they need when missing, and points Podman at the project's
# settings for these machines (container/containers.conf: runc, cgroupfs, the host's network,
# limits the machine allows) without touching the machine's own configuration.

# The local stand-in for node:24-bookworm-slim (scripts/base-image.sh), and the image itself.
BASE_IMAGE=${BASE_IMAGE:-localhost/node:24-bookworm-slim}
IMAGE=${IMAGE:-localhost/book-service}

export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/container/containers.conf}

# Installs the Debian packages named that are not installed yet (one apt-get run for all).
require_packages() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing from Debian: ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}
