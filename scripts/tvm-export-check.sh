#!/usr/bin/env bash
# Exports every variant of the samples (TE ones through their tir.Schedule translation, TensorIR
# ones as they are) and of the TensorIR test scripts for TVM 0.20 and 0.26 (`loopscope-cli export
# --format tvm --tvm R`), runs each export in that TVM, and compares what TVM printed for the
# scheduled module (`sch.mod.script()`) with what Loopscope prints for the same export
# (`loopscope-cli lower`), and TVM's trace as JSON with `export --format tvm-trace`, which must
# also replay by Trace.apply_json_to_schedule to the same module (scripts/tvm-trace-check.py).
# A GPU variant's schedule is applied and printed; it is built and run only where TVM finds a
# GPU. Large samples are exported at smaller sizes (SIZES below), so that TVM's unscheduled
# reference finishes in seconds. TVM is not a dependency: give the environment of each build (a
# file to source that puts its Python package on PYTHONPATH) in LOOPSCOPE_TVM020_ENV and
# LOOPSCOPE_TVM026_ENV; a release without one is skipped (exit 77 when both are).
#   scripts/tvm-export-check.sh [--write DIR]   (--write: keep each export and TVM's output there)
# Prints one line per export: the release, the script, the variant, "same loop nest" or a diff,
# and the time TVM measured.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${BUILD_DIR:-$here/build}/app/loopscope-cli"
python="${LOOPSCOPE_TVM_PYTHON:-/usr/bin/python3}"
keep=""
[ "${1:-}" = "--write" ] && keep="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts=("$here"/samples/*.py "$here"/samples/gpu/*.py "$here"/samples/tensorir/*.py
  "$here"/tests/data/tvm-tir/*.py)
declare -A SIZES=(
  [samples/matmul_ladder.py]="--set M=256 --set N=256 --set K=256"
  [samples/opt_gemm.py]="--set M=256 --set N=256 --set K=256"
  [samples/softmax.py]="--set N=256 --set M=256"
  [samples/transpose.py]="--set M=512 --set N=512"
  [samples/gpu/matmul_cuda.py]="--set N=256"
  [samples/gpu/softmax_cuda.py]="--set N=256"
  [samples/tensorir/matmul_ladder.py]="--set M=256 --set N=256 --set K=256"
  [samples/tensorir/matmul_cuda.py]="--set N=256"
)
failed=0 ran=0
for release in 0.20 0.26; do
  envvar="LOOPSCOPE_TVM${release/./}_ENV"
  envfile="${!envvar:-}"
  if [ -z "$envfile" ]; then echo "tvm $release: skipped ($envvar is not set)"; continue; fi
  for script in "${scripts[@]}"; do
    rel="${script#"$here"/}"
    mapfile -t variants < <("$cli" lower "$script" 2> /dev/null | sed -n 's/^# variant: //p')
    # A script of one variant names none.
    [ "${#variants[@]}" -eq 0 ] && variants=("")
    for variant in "${variants[@]}"; do
      base="$work/$(basename "$script" .py)-$(echo "$variant" | tr -c 'a-zA-Z0-9' '_')-$release"
      select=()
      [ -n "$variant" ] && select=(--variant "$variant")
      # shellcheck disable=SC2206
      [ -n "${SIZES[$rel]:-}" ] && select+=(${SIZES[$rel]})
      if ! "$cli" export "$script" "${select[@]}" --format tvm --tvm "$release" -o "$base.py" 2> "$base.err"; then
        echo "tvm $release: $rel [$variant]: not exported: $(head -c 300 "$base.err")"
        continue
      fi
      ran=$((ran + 1))
      # Loopscope's print of the export, without the variant header.
      "$cli" lower "$base.py" | sed '1{/^# variant:/d}' > "$base.loopscope"
      if ! (. "$envfile" > /dev/null 2>&1 && LOOPSCOPE_PRINT_SCHEDULED=1 timeout 600 "$python" "$base.py") > "$base.out" 2>&1; then
        echo "tvm $release: $rel [$variant]: FAILED in TVM: $(grep -m1 -E 'Error|error' "$base.out")"
        failed=$((failed + 1))
      else
        # TVM's print is everything before the timing line.
        name="$(sed -n 's/^# variant: //p' "$base.py" | head -n 1)"
        grep -v -e "^$name: .* ms, .* GFLOPS$" -e "^no GPU here: " "$base.out" > "$base.tvm"
        timing="$(grep "^$name: .* ms, .* GFLOPS$" "$base.out" | sed "s/^$name: //")"
        grep -q "^no GPU here: " "$base.out" && timing="no GPU here: applied and printed, not run"
        # The trace as JSON: what TVM records, and what replays to the same module.
        traced="trace not written"
        if "$cli" export "$script" "${select[@]}" --format tvm-trace --tvm "$release" -o "$base.json" 2> /dev/null; then
          if (. "$envfile" > /dev/null 2>&1 && timeout 600 "$python" "$here/scripts/tvm-trace-check.py" "$base.py" "$base.json") > "$base.trace" 2>&1; then
            traced="trace JSON the same, replays"
          else
            traced="TRACE JSON DIFFERS: $(tail -n 1 "$base.trace")"
            failed=$((failed + 1))
          fi
        fi
        if diff -B <(sed -e 's/[[:space:]]*$//' "$base.tvm") <(sed -e 's/[[:space:]]*$//' "$base.loopscope") > "$base.diff"; then
          echo "tvm $release: $rel [$variant]: ran, checked, same loop nest as Loopscope prints, $traced; $timing"
        else
          echo "tvm $release: $rel [$variant]: ran and checked, but TVM printed another loop nest:"
          head -n 20 "$base.diff"
          failed=$((failed + 1))
        fi
      fi
      if [ -n "$keep" ]; then mkdir -p "$keep"; cp "$base".py "$base".out "$keep"/ 2> /dev/null; fi
    done
  done
done
[ "$ran" -eq 0 ] && exit 77
[ "$failed" -eq 0 ]
