#!/usr/bin/env bash
# `npm run tck`: the official A2A 1.0 TCK (github.com/a2aproject/a2a-tck, branch 1.0-dev, pinned below) against
# the embedded system on JSON-RPC, HTTP+JSON and gRPC (test/tck/a2a-tck-v1.test.ts; its known divergences are
# in docs/conformance-notes.md, "Official A2A 1.0 TCK"). The TCK is not published on PyPI, so its source comes
# from GitHub at the pinned commit (or from A2A_TCK_SRC, a directory holding that tree, for machines without
# GitHub); its dependencies come from PyPI into a virtualenv cached under the git-ignored .infra/a2a-tck/.
# Needs python3 >= 3.11 with venv. Expects a build (`npm run build`; `npm run tck` builds first).
# Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
commit=357c4a87afa2818731590647cccbea31c31733a2
base=".infra/a2a-tck"
src="$base/src-$commit"
venv="$base/venv-$commit"
mkdir -p "$base"

if [[ -n "${A2A_TCK_SRC:-}" ]]; then
  src="$A2A_TCK_SRC"
elif [[ ! -f "$src/run_tck.py" ]]; then
  tmp="$(mktemp -d "$base/.src.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  echo "[tck] downloading a2aproject/a2a-tck@$commit" >&2
  curl -fsSL "https://codeload.github.com/a2aproject/a2a-tck/tar.gz/$commit" | tar -xz -C "$tmp" --strip-components=1
  mv -T "$tmp" "$src"
fi
[[ -f "$src/run_tck.py" && -d "$src/tests/compatibility" ]] || {
  echo "[tck] $src is not an a2a-tck tree (run_tck.py, tests/compatibility)" >&2
  exit 1
}

if [[ ! -f "$venv/.installed" ]]; then
  command -v python3 >/dev/null || { echo "[tck] python3 is required" >&2; exit 1; }
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "[tck] the TCK needs python3 >= 3.11" >&2; exit 1; }
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  # The TCK's own dependencies (its pyproject.toml) from PyPI; the tests run from the source tree.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$src" >&2
  touch "$venv/.installed"
fi

A2A_TCK_DIR="$(cd "$src" && pwd)" A2A_TCK_PYTHON="$PWD/$venv/bin/python" exec npx vitest run test/tck "$@"
