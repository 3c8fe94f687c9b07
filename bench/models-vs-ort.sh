#!/usr/bin/env bash
# Whole models against ONNX Runtime (CPU), in one run, in turns: each round times every model
# with Loopscope (default schedules, and the project's tuned choices where a project file
# M.loopscope.json sits beside the model) and then with ONNX Runtime, on the same threads; the
# table gives each contender's medians over the rounds. ONNX Runtime comes from the npm registry
# (onnxruntime-node, CPU build) into bench/ort/node_modules the first time; nothing in the build
# or the tests uses it.
#
#   bench/models-vs-ort.sh [--build DIR] [--dir DIR] [--threads N] [--rounds R] [--runs R]
#                          [MODEL.onnx ...]
#
# Without models it makes one of each model class with `loopscope-cli model make` in --dir: a CNN
# (ResNet-18), a depthwise CNN (MobileNetV2), both 1x3x224x224, a transformer encoder block
# (1x64x128) and an MLP (8x784 -> 512 -> 256 -> 10); and the two CNNs quantized to int8 by
# `loopscope-cli model quantize` (QDQ), which both contenders run from the same file. For each
# quantized model it then prints how far Loopscope's output is from ONNX Runtime's on the same
# input (bench/ort/compare.mjs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build
dir=${TMPDIR:-/tmp}/loopscope-models
threads=2
rounds=3
runs=30
models=()
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "models-vs-ort.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
    esac
done
cli=$build/app/loopscope-cli
[ -x "$cli" ] || { echo "models-vs-ort.sh: no $cli (build first)" >&2; exit 2; }
command -v node >/dev/null || { echo "models-vs-ort.sh: needs Node.js and npm" >&2; exit 2; }
if [ ! -d "$here/ort/node_modules/onnxruntime-node" ]; then
    # --ignore-scripts: the package's install script fetches CUDA libraries; the CPU build is in
    # the package itself.
    (cd "$here/ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi
mkdir -p "$dir"
if [ ${#models[@]} -eq 0 ]; then
    for kind in resnet18 mobilenetv2 encoder mlp; do
        [ -f "$dir/$kind.onnx" ] || "$cli" model make "$kind" "$dir/$kind.onnx" >/dev/null
        models+=("$dir/$kind.onnx")
    done
    for kind in resnet18 mobilenetv2; do
        [ -f "$dir/$kind-int8.onnx" ] ||
            "$cli" model quantize "$dir/$kind.onnx" "$dir/$kind-int8.onnx" >/dev/null
        models+=("$dir/$kind-int8.onnx")
    done
fi

cpu=$("$cli" machine 2>/dev/null | sed -n 's/^code for: *\([^ ]*\).*/\1/p')
echo "models against ONNX Runtime $(node -e "console.log(require('$here/ort/node_modules/onnxruntime-node/package.json').version)"), $threads threads, $rounds rounds of $runs runs in turns"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') (LLVM: ${cpu:-unknown})"

# One median in milliseconds per line: "MODEL CONTENDER MS".
results=$(mktemp)
trap 'rm -f "$results"' EXIT
loopscope_ms() { # model, extra options
    "$cli" model bench "$1" --threads "$threads" --repeat "$runs" "${@:2}" 2>/dev/null |
        sed -n 's/^end to end: \([0-9.]*\) ms median.*/\1/p'
}
for round in $(seq 1 "$rounds"); do
    for m in "${models[@]}"; do
        name=$(basename "$m" .onnx)
        [ "$name" = model ] && name=$(basename "$(dirname "$m")")
        d=$(loopscope_ms "$m" --default-schedules)
        echo "$name loopscope-default ${d:-failed}" >>"$results"
        if [ -f "${m%.onnx}.loopscope.json" ]; then
            t=$(loopscope_ms "$m")
            echo "$name loopscope-tuned ${t:-failed}" >>"$results"
        fi
        o=$(node "$here/ort/time.mjs" "$m" --threads "$threads" --runs "$runs" | awk '{print $3}')
        echo "$name onnxruntime ${o:-failed}" >>"$results"
        echo "round $round: $name default ${d:-failed} ms${t:+, tuned $t ms}, ONNX Runtime ${o:-failed} ms" >&2
        t=
    done
done

# Quantized models: Loopscope's output against ONNX Runtime's on ONNX Runtime's input.
for m in "${models[@]}"; do
    grep -q QuantizeLinear "$m" 2>/dev/null || continue
    io=$(mktemp -d)
    node "$here/ort/time.mjs" "$m" --threads "$threads" --runs 1 --warmup 0 --save "$io" >/dev/null
    "$cli" model run "$m" --input "$(node -e "
        const ort = require('$here/ort/node_modules/onnxruntime-node');
        ort.InferenceSession.create('$m').then(s => console.log(s.inputNames[0]));")=$io/input_0.pb" \
        --output-dir "$io/loopscope" >/dev/null 2>&1
    echo "agreement $(basename "$m" .onnx): $(node "$here/ort/compare.mjs" "$io/loopscope/output_0.pb" \
        "$io/output_0.pb" | awk '{printf "max |Loopscope - ONNX Runtime| %s, largest |value| %s (%s of it)", $4, $5, $6}')"
    rm -rf "$io"
done

echo
printf '%-18s %-20s %-26s %s\n' model contender "ms per round (median)" "vs ONNX Runtime"
awk '
    { key = $1 " " $2; v[key] = v[key] (v[key] == "" ? "" : " ") $3; n[key]++
      if (!($1 in seen)) { seen[$1] = 1; order[++models] = $1 }
      if (!(($1, $2) in have)) { have[$1, $2] = 1; cont[$1] = cont[$1] " " $2 } }
    function median(list,   a, k, i, j, t) {
        k = split(list, a, " ")
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((k + 1) / 2)]
    }
    END {
        for (i = 1; i <= models; i++) {
            m = order[i]; ort = median(v[m " onnxruntime"])
            k = split(cont[m], c, " ")
            for (j = 1; j <= k; j++) {
                key = m " " c[j]; med = median(v[key])
                ratio = (c[j] == "onnxruntime" || med <= 0) ? "" : sprintf("%.2fx", ort / med)
                printf "%-18s %-20s %-26s %s\n", m, c[j], v[key] " (" med ")", ratio
            }
        }
    }' "$results"
