#!/usr/bin/env bash
# Renders the Loopscope window on samples/opt_gemm.py under Xvfb to a PNG (default:
# docs/screenshot.png), after running the ladder of the "write cache" variant at a small size.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
out="${1:-$here/docs/screenshot.png}"
mkdir -p "$(dirname "$out")"
script="$(mktemp --suffix=.py)"
trap 'rm -f "$script"' EXIT
sed -e 's/^M = 1024$/M = 256/' -e 's/^K = 1024$/K = 256/' -e 's/^N = 1024$/N = 256/' "$here/samples/opt_gemm.py" > "$script"
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/loopscope" "$script" \
  --variant "write cache" --run --screenshot "$out"
echo "wrote $out"
