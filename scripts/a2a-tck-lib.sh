# Sourced by scripts/a2a-tck.sh (1.0) and scripts/a2a-tck-0.3.sh (0.3): installs the official A2A TCK
# (github.com/a2aproject/a2a-tck) at a pinned commit and runs one vitest file against it.
# The TCK is not published on PyPI, so its source comes from GitHub at the pinned commit (or from A2A_TCK_SRC, a
# directory holding that tree, for machines without GitHub); its dependencies come from PyPI into a virtualenv
# cached under the git-ignored .infra/a2a-tck/. Needs python3 >= 3.11 with venv. Expects a build.

# run_a2a_tck <commit> <a path the tree must have> <vitest file> [vitest arguments...]
run_a2a_tck() {
  local commit="$1" marker="$2" test_file="$3"
  shift 3
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  local base=".infra/a2a-tck"
  local src="$base/src-$commit"
  local venv="$base/venv-$commit"
  mkdir -p "$base"

  if [[ -n "${A2A_TCK_SRC:-}" ]]; then
    src="$A2A_TCK_SRC"
  elif [[ ! -f "$src/run_tck.py" ]]; then
    tck_tmp="$(mktemp -d "$base/.src.XXXXXX")" # global: the EXIT trap runs outside this function
    trap 'rm -rf "$tck_tmp"' EXIT
    echo "[tck] downloading a2aproject/a2a-tck@$commit" >&2
    curl -fsSL "https://codeload.github.com/a2aproject/a2a-tck/tar.gz/$commit" | tar -xz -C "$tck_tmp" --strip-components=1
    mv -T "$tck_tmp" "$src"
  fi
  [[ -f "$src/run_tck.py" && -e "$src/$marker" ]] || {
    echo "[tck] $src is not the a2a-tck tree this run needs (run_tck.py, $marker; commit $commit)" >&2
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

  A2A_TCK_DIR="$(cd "$src" && pwd)" A2A_TCK_PYTHON="$PWD/$venv/bin/python" exec npx vitest run "$test_file" "$@"
}
