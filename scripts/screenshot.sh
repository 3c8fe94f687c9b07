#!/usr/bin/env bash
# Renders the Loopscope window under Xvfb to PNGs in docs/ (or the folder given):
#   screenshot.png  samples/opt_gemm.py at 256, after running the "write cache" ladder;
#   charts.png      samples/opt_gemm.py after a sweep of all seven variants over 64..2048 with
#                   the OpenBLAS line (about a minute and a half on 2 cores).
# Each run uses a fresh settings and data folder, as a new user would.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
out="${1:-$here/docs}"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"
sed -e 's/^M = 1024$/M = 256/' -e 's/^K = 1024$/K = 256/' -e 's/^N = 1024$/N = 256/' \
  "$here/samples/opt_gemm.py" > "$tmp/opt_gemm_256.py"
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/loopscope" "$tmp/opt_gemm_256.py" \
  --variant "write cache" --run --screenshot "$out/screenshot.png"
echo "wrote $out/screenshot.png"
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/loopscope" "$here/samples/opt_gemm.py" \
  --sweep --screenshot "$out/charts.png"
echo "wrote $out/charts.png"
