#!/usr/bin/env bash
# Sets up, builds and starts the Loopscope window on a bundled sample (default: samples/opt_gemm.py).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh" "$build"
exec "$build/app/loopscope" "${1:-$here/samples/opt_gemm.py}"
