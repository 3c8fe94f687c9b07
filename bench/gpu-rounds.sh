#!/usr/bin/env bash
# The host's side of GPU tuning, per candidate: `tune --rounds-out` on each GPU sample at its own
# size (the search from its declaration with the GPU rules, each candidate checked on this CPU at
# the check size, compiled to PTX and written as a kernel bundle), TRIALS candidates a round,
# REPEAT rounds from a fresh log; prints each round's seconds, their median and spread, and the
# median per candidate: what one GPU trial costs here before the GPU times it.
#
#   bench/gpu-rounds.sh [TRIALS (16)] [REPEAT (3)]     BUILD: the build folder (build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TRIALS=${1:-16}
REPEAT=${2:-3}
cli="$BUILD/app/loopscope-cli"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" machine 2>/dev/null | head -n 2
printf '%-28s %8s %22s %14s\n' "sample (variant)" "median s" "min-max s" "s/candidate"
for spec in "matmul_cuda:bind" "opt_conv_cuda:how-to" "softmax_cuda:" "add_relu_cuda:bind"; do
    sample=${spec%%:*}
    variant=${spec#*:}
    times=()
    for ((r = 0; r < REPEAT; r++)); do
        rm -rf "$work/rounds" "$work/log.jsonl"
        t0=$(date +%s.%N)
        "$cli" tune "samples/gpu/$sample.py" ${variant:+--variant "$variant"} --trials "$TRIALS" \
            --target "cuda -arch=sm_90" --rounds-out "$work/rounds" --log "$work/log.jsonl" \
            > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; exit 1; }
        t1=$(date +%s.%N)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    median=$(echo "$sorted" | sed -n "$(((REPEAT + 1) / 2))p")
    written=$(ls "$work/rounds/round-001" | grep -c '^trial-')
    printf '%-28s %8.2f %10.2f-%-10.2f %14.3f\n' "$sample (${variant:-first})" "$median" \
        "$(echo "$sorted" | head -n 1)" "$(echo "$sorted" | tail -n 1)" \
        "$(awk -v m="$median" -v n="$written" 'BEGIN { print m / n }')"
done
