#!/usr/bin/env bash
# Model tuning with 1 and then 2 runners on this machine, the same model, tasks and budget: wall
# time, each runner's busy share, and the host's shares searching, training and waiting.
#   bench/runners-scale.sh [MODEL.onnx] [--top K] [--trials N] [--runner 'COMMAND']
# Default: ResNet-18 (made by `model make resnet18`), --top 4, --trials 16, the worker here.
# Every measurement uses one thread (--threads 1), so that two runners on two cores measure as
# one runner does. Each configuration tunes from empty logs (its own copy of the model).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${BUILD_DIR:-$here/build}/app/loopscope-cli"
model="" top=4 trials=16 runner=""
while (($#)); do
  case "$1" in
  --top) top="$2"; shift 2 ;;
  --trials) trials="$2"; shift 2 ;;
  --runner) runner="$2"; shift 2 ;;
  *) model="$1"; shift ;;
  esac
done
work="$(mktemp -d /tmp/loopscope-runners-scale.XXXXXX)"
trap 'rm -rf "$work"' EXIT
if [ -z "$model" ]; then
  model="$work/resnet18.onnx"
  "$cli" model make resnet18 "$model" > /dev/null
fi
echo "machine: $("$cli" machine 2> /dev/null | head -n 3 | tr '\n' ' ')"
echo "model: $(basename "$model"), --top $top --trials $trials --threads 1${runner:+, --runner '$runner'}"
for runners in 1 2; do
  mkdir -p "$work/$runners"
  cp "$model" "$work/$runners/model.onnx"
  args=(model tune "$work/$runners/model.onnx" --top "$top" --trials "$trials" --threads 1)
  [ "$runners" -gt 1 ] && args+=(--runners "$runners")
  [ -n "$runner" ] && args+=(--runner "$runner")
  start=$(date +%s.%N)
  "$cli" "${args[@]}" > "$work/$runners/out" 2> "$work/$runners/err"
  end=$(date +%s.%N)
  echo
  echo "== $runners runner(s): $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s wall"
  grep -E "^(runner|the host|measuring on)" "$work/$runners/err" || true
  # The single worker prints no runner lines: its host shares from the tasks' own times.
  grep -cE "trial [0-9]+:" "$work/$runners/err" > /dev/null || true
  tail -n 1 "$work/$runners/out"
done
