#!/usr/bin/env bash
# Installs the Python peers of the interop tests (test/interop/python): the official MCP
# SDK (`mcp`) and FastMCP, at the exact versions test/interop/python/requirements.txt
# pins, into a virtual environment at .tmp/python-peer, from the Python package index.
# Skips the install when that environment already holds exactly those. `.ci/run` and
# `npm test` call it; `npx jest test/interop/python` needs it run once.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=test/interop/python/requirements.txt
venv=.tmp/python-peer
stamp=$venv/installed-requirements.txt

python_bin=$(command -v python3 || true)
if [ -z "$python_bin" ] || ! "$python_bin" -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  cat >&2 <<'MSG'
setup-python-peer: Python 3.10 or later, with its venv module, is needed for the Python
peers of test/interop/python, and none was found as `python3`. Install it (Debian or
Ubuntu: `sudo apt-get install python3 python3-venv`), then run:
bash scripts/setup-python-peer.sh
MSG
  exit 1
fi

if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
  echo "setup-python-peer: $venv is up to date"
  exit 0
fi

echo "setup-python-peer: installing $requirements into $venv with $("$python_bin" --version)"
rm -rf "$venv"
"$python_bin" -m venv "$venv"
# Every package named with its version, nothing resolved beyond the list.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$requirements"
"$venv/bin/python" -m pip check
cp "$requirements" "$stamp"
