#!/usr/bin/env bash
# int8 matmuls and convolutions (uint8 x int8 -> int32) against oneDNN's and the machine's int8
# peak, with the float32 matmul against OpenBLAS and the FMA peak beside them. Each round sweeps the
# sizes once, the variant and the reference timed in turns at each size (`sweep --blas`); ROUNDS
# rounds, then each contender's median over the rounds and its spread (min-max).
#
#   bench/int8-vs-onednn.sh [ROUNDS (5)] [SIZES (256,512,1024)]     BUILD: the build folder (build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${1:-5}
SIZES=${2:-256,512,1024}
cli="$BUILD/app/loopscope-cli"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" machine | grep -E '^(CPU|code for|cores|peak)'
run() { # sample variant label [param values]
    for ((r = 0; r < ROUNDS; r++)); do
        "$cli" sweep "samples/$1.py" --param "${4:-M,N,K}" --values "${5:-$SIZES}" --variant "$2" \
            --blas --json >"$work/r$r.json"
    done
    python3 - "$work" "$ROUNDS" "$3" <<'PY'
import json, statistics, sys
work, rounds, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
by = {}
for r in range(rounds):
    for p in json.load(open(f"{work}/r{r}.json")):
        if p.get("failed"):
            continue
        name = p["variant"] if not p.get("reference") else "reference"
        by.setdefault((p["values"][0], name), []).append(p["gflops"])
sizes = sorted({k[0] for k in by})
print(f"{label}: G(FL)OPS, median (min-max) over {rounds} rounds")
for n in sizes:
    names = [k[1] for k in by if k[0] == n and k[1] != "reference"]
    ours, ref = by.get((n, names[0]), []) if names else [], by.get((n, "reference"), [])
    fmt = lambda xs: f"{statistics.median(xs):8.1f} ({min(xs):.1f}-{max(xs):.1f})" if xs else "       -"
    ratio = statistics.median(ours) / statistics.median(ref) if ours and ref else float("nan")
    print(f"  {n:5d}    ours {fmt(ours)}   reference {fmt(ref)}   ours/reference {ratio:.2f}")
PY
}
run int8_matmul_ladder "tensorized, sums in registers" "int8 matmul vs oneDNN"
run int8_conv2d_nchwc "tensorized, a row of 7 pixels in registers" "int8 convolution vs oneDNN (in_size; 64 -> 64 channels, 3x3)" in_size 28,56
run gemm_best "$("$cli" lower samples/gemm_best.py --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["variants"][-1]["name"])')" "float32 matmul vs OpenBLAS"
