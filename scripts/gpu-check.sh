#!/usr/bin/env bash
# The device check: every GPU sample's ladder on an NVIDIA GPU through loopscope-runner, each
# variant checked against the reference and timed with CUDA events, its reference timed in turns
# with it (cuBLAS for the matmuls, cuDNN for the convolution, the device's copy bandwidth for the
# element-wise and softmax kernels); prints ms, GFLOPS and the ratio to the reference.
#
#   scripts/gpu-check.sh make DIR   here (a build of Loopscope, no GPU needed): a kernel bundle of
#                                   every variant of samples/gpu/*.py at the samples' own sizes,
#                                   and the runner, into DIR
#   scripts/gpu-check.sh run DIR    on the machine with the GPU: needs only DIR, glibc 2.31 or
#                                   newer and the NVIDIA driver (cuBLAS and cuDNN where their
#                                   libraries are there)
#   scripts/gpu-check.sh            both, on a machine that has a build and a GPU
#
# With ROUND_TRIALS=N (default 0: none), make also writes the first round of a GPU tuning of each
# sample in ROUND_SAMPLES (default: the matmul from 'bind' and the convolution from 'how-to') to
# DIR/rounds-NAME (tune --rounds-out, N candidates checked here), and run times each round there
# (loopscope-runner --measure); back here, `loopscope-cli tune samples/gpu/NAME.py --rounds-in
# DIR/rounds-NAME --log DIR/rounds-NAME.jsonl` (as make prints it) learns the times and writes the
# next round.
#
# ARCH (default sm_80) is the architecture the PTX is compiled for; the driver compiles it for
# the GPU it runs on (sm_80 PTX runs on A100, H100 and later). BUILD is the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ARCH=${ARCH:-sm_80}
ROUND_TRIALS=${ROUND_TRIALS:-0}
ROUND_SAMPLES=${ROUND_SAMPLES:-matmul_cuda:bind opt_conv_cuda:how-to}

make_bundles() {
    local dir=$1
    local cli="$BUILD/app/loopscope-cli"
    [ -x "$cli" ] || { echo "gpu-check: no $cli: build Loopscope first (scripts/test.sh or ninja -C $BUILD)" >&2; exit 1; }
    mkdir -p "$dir"
    cp "$BUILD/app/loopscope-runner" "$dir/"
    local n=0
    for script in samples/gpu/*.py; do
        local base
        base=$(basename "$script" .py)
        # The document format marks each variant with a "# variant: NAME" line.
        while IFS= read -r variant; do
            n=$((n + 1))
            local out
            out=$(printf '%s/%02d-%s-%s.json' "$dir" "$n" "$base" "${variant// /_}")
            "$cli" export "$script" --variant "$variant" --format bundle \
                --target "cuda -arch=$ARCH" -o "$out"
            echo "gpu-check: $out"
        done < <(sed -n 's/^# variant: //p' "$script")
    done
    if [ "$ROUND_TRIALS" -gt 0 ]; then
        for spec in $ROUND_SAMPLES; do
            local name=${spec%%:*} variant=${spec#*:}
            "$cli" tune "samples/gpu/$name.py" --variant "$variant" --trials "$ROUND_TRIALS" \
                --target "cuda -arch=$ARCH" --rounds-out "$dir/rounds-$name" \
                --log "$dir/rounds-$name.jsonl"
        done
    fi
}

# find_library LDCONFIG_PATTERN FILE_GLOB NAME: where the loader does not know the library, the
# newest copy found under /usr/local, /usr/lib or /opt goes on LD_LIBRARY_PATH.
find_library() {
    ldconfig -p 2>/dev/null | grep -q "$1" && return 0
    local lib
    lib=$(find /usr/local /usr/lib /opt -name "$2" 2>/dev/null | sort | tail -n 1)
    if [ -n "$lib" ]; then
        echo "gpu-check: $3 from $lib"
        export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
}

run_bundles() {
    local dir=$1
    [ -x "$dir/loopscope-runner" ] || { echo "gpu-check: no $dir/loopscope-runner (make it first: $0 make $dir)" >&2; exit 1; }
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
    # cuBLAS and cuDNN where the loader does not know them: a CUDA toolkit's or a Python
    # wheel's copy.
    find_library 'libcublas\.so\.1[0-9]' 'libcublas.so.1[0-9]*' cuBLAS
    find_library 'libcudnn\.so\.[89]' 'libcudnn.so.[89]*' cuDNN
    local status=0
    "$dir/loopscope-runner" --bundle "$dir"/*.json || status=$?
    for rounds in "$dir"/rounds-*/; do
        [ -d "$rounds" ] || continue
        "$dir/loopscope-runner" --measure "$rounds" || status=$?
    done
    return "$status"
}

case "${1:-}" in
make) make_bundles "${2:?usage: $0 make DIR}" ;;
run) run_bundles "${2:?usage: $0 run DIR}" ;;
"")
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    make_bundles "$dir"
    run_bundles "$dir"
    ;;
*) echo "usage: $0 [make DIR | run DIR]" >&2; exit 2 ;;
esac
