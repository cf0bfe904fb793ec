#!/usr/bin/env bash
# Builds the Go peer of the interop tests (test/interop/go/peer) into
# .tmp/go-peer/agenttool-go-peer, its modules from the Go module proxy as go.sum pins
# them. Skips the build when the binary is newer than every source. `.ci/run` and
# `npm test` call it; `npx jest test/interop/go` needs it run once.
set -euo pipefail
cd "$(dirname "$0")/.."

src=test/interop/go/peer
out=.tmp/go-peer/agenttool-go-peer

go_bin=$(command -v go || true)
if [ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ]; then go_bin=/usr/local/go/bin/go; fi
if [ -z "$go_bin" ]; then
  cat >&2 <<'MSG'
setup-go-peer: Go is needed to build the Go peer of test/interop/go, and none was found
(neither `go` on PATH nor /usr/local/go/bin/go). Install Go 1.25 or later from
https://go.dev/dl/ (or a distribution package of that version), put its bin folder on
PATH, then run: bash scripts/setup-go-peer.sh
MSG
  exit 1
fi

if [ -x "$out" ] && [ -z "$(find "$src" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$out")" ]; then
  echo "setup-go-peer: $out is up to date"
  exit 0
fi

mkdir -p "$(dirname "$out")"
echo "setup-go-peer: building $out with $("$go_bin" version)"
# The machine's own Go, the modules go.sum pins, nothing else.
(cd "$src" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$go_bin" build -trimpath -o "$OLDPWD/$out" .)
