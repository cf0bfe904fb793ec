#!/usr/bin/env bash
# Installs the Debian packages that the scale-out test and benchmark start on loopback
# ports: HAProxy (the load balancer) and Redis (the shared state). Skips what is already
# there; `.ci/run` calls it before the tests. Needs root, or sudo.
set -euo pipefail

# haproxy lives in /usr/sbin, which is not on every user's PATH.
present() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

missing=()
present haproxy || missing+=(haproxy)
present redis-server || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: haproxy and redis-server are installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "setup-system: installing ${missing[*]} needs root or sudo" >&2
    exit 1
  }
  as_root=(sudo)
fi
echo "setup-system: installing ${missing[*]}"
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
