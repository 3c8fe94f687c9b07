#!/usr/bin/env bash
# Sets up, builds and starts the Loopscope window on a bundled sample (default: samples/opt_gemm.py).
# Usage: scripts/start.sh [FILE] [loopscope options, e.g. --smoke-test; see loopscope --help]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh" "$build"
# Without a file the window opens the GEMM tutorial sample itself.
exec "$build/app/loopscope" "$@"
