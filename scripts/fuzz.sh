#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer and UndefinedBehaviorSanitizer) in
# build-sanitize (the objects the sanitized tests use too) and runs each one: first over its regression inputs (fuzz/regressions/TARGET: every
# crash found once), then fuzzing from a seed corpus for a bounded time.
#   scripts/fuzz.sh [--seconds S] [--runs N] [--only script|schedule|tunelog|onnx] [--corpus DIR]
# --seconds: how long each target fuzzes (default 60); --runs: stop a target after N executions
# instead; --corpus: keep the corpora (and what they grow to) under DIR, for long runs.
# The ONNX target needs libonnx-testdata for its seeds (the setup installs it).
# The script target starts from the samples, the test scripts and the error corpus, with the
# dictionary of TE tokens (fuzz/te.dict). A crash, a sanitizer report, an internal error, a
# timeout (10 s an input), more than 2 GB of memory or a wrong result fails the run, and
# libFuzzer writes the input that caused it to build-sanitize/findings/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
seconds=60 runs="" only="" corpus=""
while (($#)); do
  case "$1" in
  --seconds) seconds="$2"; shift 2 ;;
  --runs) runs="$2"; shift 2 ;;
  --only) only="$2"; shift 2 ;;
  --corpus) corpus="$2"; shift 2 ;;
  *) echo "usage: scripts/fuzz.sh [--seconds S] [--runs N] [--only script|schedule|tunelog|onnx] [--corpus DIR]" >&2; exit 2 ;;
  esac
done

scripts/configure-sanitize.sh
cmake --build build-sanitize -j "$(nproc)" --target loopscope-fuzz-script loopscope-fuzz-schedule \
  loopscope-fuzz-tunelog loopscope-fuzz-onnx

corpus="${corpus:-$(mktemp -d)}"
mkdir -p "$corpus/script" "$corpus/schedule" "$corpus/tunelog" "$corpus/onnx" build-sanitize/findings
cp samples/*.py tests/data/errors/*.py tests/data/scripts/*.py fuzz/regressions/script/* "$corpus/script/" 2> /dev/null || true
cp fuzz/regressions/schedule/* "$corpus/schedule/" 2> /dev/null || true
mkdir -p "$corpus/tunelog"
cp fuzz/seeds/tunelog/* fuzz/regressions/tunelog/* "$corpus/tunelog/" 2> /dev/null || true
# The ONNX loader starts from ONNX's own node tests (small models of one operator each), the
# sample MLP and what it once failed on.
for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  [ -e "$m" ] && cp "$m" "$corpus/onnx/$(basename "$(dirname "$m")").onnx"
done
cp samples/models/mlp/model.onnx "$corpus/onnx/mlp.onnx"
cp fuzz/regressions/onnx/* "$corpus/onnx/" 2> /dev/null || true
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

for target in script schedule tunelog onnx; do
  [ -z "$only" ] || [ "$only" = "$target" ] || continue
  exe="build-sanitize/fuzz/loopscope-fuzz-$target"
  regressions=(fuzz/regressions/$target/*)
  if [ -e "${regressions[0]}" ]; then
    echo "== $target: ${#regressions[@]} regression inputs"
    "$exe" "${regressions[@]}" > "build-sanitize/findings/$target-regressions.log" 2>&1 ||
      { tail -n 40 "build-sanitize/findings/$target-regressions.log"; exit 1; }
  fi
  limit=(-max_total_time="$seconds")
  [ -z "$runs" ] || limit=(-runs="$runs")
  max_len=8192
  [ "$target" = schedule ] && max_len=512
  [ "$target" = tunelog ] && max_len=16384
  [ "$target" = onnx ] && max_len=262144
  echo "== $target: fuzzing (${runs:+$runs runs}${runs:-$seconds s})"
  dict=()
  [ "$target" = script ] && dict=(-dict=fuzz/te.dict)
  if ! "$exe" "${dict[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 "${limit[@]}" \
    -print_final_stats=1 -artifact_prefix="build-sanitize/findings/$target-" "$corpus/$target" \
    > "build-sanitize/findings/$target.log" 2>&1; then
    tail -n 60 "build-sanitize/findings/$target.log"
    echo "fuzz: $target found a problem; the input is in build-sanitize/findings/" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done" "build-sanitize/findings/$target.log" | tr '\n' ' '
  echo
done
echo "fuzz: clean"
