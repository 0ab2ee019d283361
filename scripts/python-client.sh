#!/usr/bin/env bash
# The official A2A Python client (a2a-sdk, PyPI) in a virtualenv under the git-ignored .infra/python/, for
# the interoperability tests (test/e2e/python-client.test.ts). Idempotent and cached: a second run only
# checks the marker and prints the interpreter's path. Needs python3 (>= 3.10) with the venv module.
# Usage: scripts/python-client.sh   → prints the venv's python on stdout (progress on stderr)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# a2a-sdk 0.3.26, the newest 0.3.x (the A2A 0.3 protocol we serve), and its dependencies, pinned.
requirements=scripts/python-client.requirements.txt
version="$(sed -n 's/^a2a-sdk==//p' "$requirements")"
stamp="$(sha256sum "$requirements" | cut -c1-16)"
venv=".infra/python/a2a-sdk-$version"
if [[ "$(cat "$venv/.installed" 2>/dev/null)" == "$stamp" ]]; then
  echo "$PWD/$venv/bin/python"
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is required (the a2a-sdk client tests)" >&2; exit 1; }
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "a2a-sdk needs python3 >= 3.10" >&2; exit 1; }
mkdir -p .infra/python
# Built beside and renamed into place: a run cut off half way, or another checkout sharing .infra, never sees
# a half-installed venv.
tmp="$(mktemp -d ".infra/python/.a2a-sdk-$version.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
python3 -m venv "$tmp" >&2
"$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
echo "$stamp" >"$tmp/.installed"
# Only `bin/python -m …` is used: it finds its venv from its own place, so the moved venv works. Two runs at once
# (two test files on a fresh machine): the first rename wins and the other keeps the one it finds.
if ! mv -T "$tmp" "$venv" 2>/dev/null; then
  if [[ "$(cat "$venv/.installed" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$venv"
    mv -T "$tmp" "$venv"
  fi
fi
echo "$PWD/$venv/bin/python"
