#!/usr/bin/env bash
# `npm run tck:0.3`: the official A2A 0.3 TCK (github.com/a2aproject/a2a-tck, branch 0.3.x, pinned below: the
# default branch `main` has moved to the 1.0 release candidate) against the embedded system's `demo:tck` agent on
# its 0.3 JSON-RPC endpoint (test/tck/a2a-tck-v03.test.ts; known divergences in docs/conformance-notes.md,
# "Official A2A 0.3 TCK"). Download, A2A_TCK_SRC and the virtualenv: a2a-tck-lib.sh. Extra arguments go to vitest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/a2a-tck-lib.sh"
run_a2a_tck eb1f804c27ea25db8805264d9ed2d7ca077a7776 tests/mandatory test/tck/a2a-tck-v03.test.ts "$@"
