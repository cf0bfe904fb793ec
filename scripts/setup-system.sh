#!/usr/bin/env bash
# Installs the Debian packages the tests and the workspace server need, skipping what is
# already there; `.ci/run` and `npm test` (pretest) call it. Needs root, or sudo.
# - bubblewrap, socat: the OS sandbox of the shell (@anthropic-ai/sandbox-runtime wraps
#   each shell in bubblewrap; socat bridges its network proxy). Not ripgrep: the runtime
#   ran it only to scan the server's working directory, which we turn off; the paths the
#   sandbox protects are found in-process (src/shell/protected-paths.ts).
# - haproxy, redis-server: the load balancer and the shared state of the scale-out tests.
# - bsdutils: script(1), the pseudo-terminal the test of `agenttool call`'s live progress
#   line runs the command on (essential on Debian, so normally there already).
# - locales: the definitions localedef(1) builds a locale from; the shell's tests build a
#   multibyte locale that is not UTF-8 (EUC-JP) and read commands in it.
set -euo pipefail

# Some of these live in /usr/sbin, which is not on every user's PATH.
present() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

missing=()
present bwrap || missing+=(bubblewrap)
present socat || missing+=(socat)
present haproxy || missing+=(haproxy)
present redis-server || missing+=(redis-server)
present script || missing+=(bsdutils)
[ -e /usr/share/i18n/charmaps/EUC-JP.gz ] || missing+=(locales)
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: bubblewrap, socat, haproxy, redis-server, script and locales are installed"
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
