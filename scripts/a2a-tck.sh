#!/usr/bin/env bash
# `npm run tck`: the official A2A 1.0 TCK (github.com/a2aproject/a2a-tck, branch 1.0-dev, pinned below) against
# the embedded system on JSON-RPC, HTTP+JSON and gRPC (test/tck/a2a-tck-v1.test.ts; its known divergences are
# in docs/conformance-notes.md, "Official A2A 1.0 TCK"). Download, A2A_TCK_SRC and the virtualenv: a2a-tck-lib.sh.
# Extra arguments go to vitest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/a2a-tck-lib.sh"
run_a2a_tck 357c4a87afa2818731590647cccbea31c31733a2 tests/compatibility test/tck/a2a-tck-v1.test.ts "$@"
