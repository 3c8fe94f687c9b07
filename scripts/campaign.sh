#!/usr/bin/env bash
# The long correctness runs as Slurm array jobs: the random-schedule differential check
# (loopscope-fuzz: random schedules of random TE programs, each checked against the reference
# interpreter) and each libFuzzer target (scripts/fuzz.sh builds them in build-sanitize/fuzz),
# split into array tasks over seed ranges, one CPU each. Their counts, wrong results and crashes
# are collected into one report; run again with the same --dir, it submits only the tasks that
# have not finished (an allocation that ended, a node that went), then reports on all.
#
#   scripts/campaign.sh [--dir DIR] [--tasks N] [--schedules N] [--fuzz-seconds S]
#                       [--start SEED] [--targets script,schedule,tunelog,onnx] [--wait]
#                       [--sbatch 'OPTIONS'] [--report]
#
#   --tasks N         array tasks of each kind (default 4)
#   --schedules N     random programs per schedule task (default 500; each has several schedules)
#   --fuzz-seconds S  seconds each fuzz task fuzzes (default 60; 0 leaves the fuzz targets out)
#   --start SEED      the first seed (default 1); task i of a kind takes its own range
#   --wait            waits for the jobs (sbatch --wait) and writes the report
#   --sbatch OPTIONS  more sbatch options (a partition, an account, --time)
#   --report          writes DIR/report.txt from what has finished, submitting nothing
#
# Needs SLURM_CONF (or a configured cluster) and the build (scripts/test.sh; scripts/fuzz.sh for
# the fuzz targets). A million schedules is --tasks 2000 --schedules 100 on enough nodes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
dir="$here/build/campaign"
tasks=4 schedules=500 fuzz_seconds=60 start=1 wait=0 report_only=0 extra=""
targets="script,schedule,tunelog,onnx"
while (($#)); do
  case "$1" in
  --dir) dir="$2"; shift 2 ;;
  --tasks) tasks="$2"; shift 2 ;;
  --schedules) schedules="$2"; shift 2 ;;
  --fuzz-seconds) fuzz_seconds="$2"; shift 2 ;;
  --start) start="$2"; shift 2 ;;
  --targets) targets="$2"; shift 2 ;;
  --wait) wait=1; shift ;;
  --sbatch) extra="$2"; shift 2 ;;
  --report) report_only=1; shift ;;
  *) sed -n '2,25p' "$0" >&2; exit 2 ;;
  esac
done
fuzz="$build/bench/loopscope-fuzz"
mkdir -p "$dir"/{out,done,failures,corpus,slurm}
dir="$(cd "$dir" && pwd)"

# The units of work, one per array index, fixed when the campaign starts (a resumed campaign
# keeps its own list, whatever options it is given again).
units="$dir/units.txt"
if [ ! -s "$units" ]; then
  [ -x "$fuzz" ] || { echo "campaign: no $fuzz (run scripts/test.sh first)" >&2; exit 1; }
  : > "$units.new"
  for ((i = 0; i < tasks; i++)); do
    echo "schedules $((start + i * schedules)) $schedules" >> "$units.new"
  done
  if [ "$fuzz_seconds" -gt 0 ]; then
    IFS=, read -ra list <<< "$targets"
    for t in "${list[@]}"; do
      exe="$here/build-sanitize/fuzz/loopscope-fuzz-$t"
      if [ ! -x "$exe" ]; then
        echo "campaign: the fuzz target $t is not built (scripts/fuzz.sh builds it): left out" >&2
        continue
      fi
      for ((i = 0; i < tasks; i++)); do echo "fuzz-$t $((start + i)) $fuzz_seconds" >> "$units.new"; done
    done
  fi
  mv "$units.new" "$units"
fi

# One array task: the unit on its line, its output kept, a marker when it finished.
cat > "$dir/task.sh" << EOF
#!/usr/bin/env bash
set -u
line=\$(sed -n "\$((SLURM_ARRAY_TASK_ID + 1))p" "$dir/units.txt")
read -r kind seed amount <<< "\$line"
name="\$kind-\$seed"
out="$dir/out/\$name.txt"
t0=\$(date +%s.%N)
case "\$kind" in
schedules)
  "$fuzz" --start "\$seed" --cases "\$amount" --save "$dir/failures/\$name" > "\$out.part" 2>&1
  rc=\$? ;;
fuzz-*)
  target=\${kind#fuzz-}
  max_len=8192
  case "\$target" in schedule) max_len=512 ;; tunelog) max_len=16384 ;; onnx) max_len=262144 ;; esac
  mkdir -p "$dir/corpus/\$name"
  seeds=()
  for d in "$here/fuzz/regressions/\$target" "$here/fuzz/seeds/\$target"; do [ -d "\$d" ] && seeds+=("\$d"); done
  dict=()
  [ "\$target" = script ] && dict=(-dict="$here/fuzz/te.dict")
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \\
    "$here/build-sanitize/fuzz/loopscope-fuzz-\$target" -seed="\$seed" -max_total_time="\$amount" \\
    -max_len="\$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "\${dict[@]}" \\
    -artifact_prefix="$dir/failures/\$name-" "$dir/corpus/\$name" "\${seeds[@]}" > "\$out.part" 2>&1
  rc=\$?
  # A finding is run again alone: one that does not fail then (LeakSanitizer's own tracer has
  # crashed at exit under load) is kept and reported, but is not a wrong result.
  if [ "\$rc" -ne 0 ]; then
    for input in "$dir/failures/\$name-"*; do
      [ -f "\$input" ] || continue
      echo "== the finding \$input run again alone" >> "\$out.part"
      if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$here/build-sanitize/fuzz/loopscope-fuzz-\$target" "\$input" >> "\$out.part" 2>&1; then
        echo "not reproduced alone" >> "\$out.part"
        mv "\$input" "\$input.not-reproduced"
        rc=0
      else
        rc=1
        break
      fi
    done
  fi ;;
*) echo "unknown unit '\$line'" > "\$out.part"; rc=2 ;;
esac
t1=\$(date +%s.%N)
echo "exit \$rc seconds \$(awk -v a="\$t0" -v b="\$t1" 'BEGIN { printf "%.2f", b - a }') host \$(hostname)" >> "\$out.part"
mv "\$out.part" "\$out"
echo "\$rc" > "$dir/done/\$name"
EOF
chmod +x "$dir/task.sh"

unit_name() { awk '{ print $1 "-" $2 }' <<< "$1"; }
# calc EXPRESSION: floating-point arithmetic (awk; bc is not everywhere).
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

report() {
  local r="$dir/report.txt" n=0 finished=0
  local sched_cases=0 sched_schedules=0 sched_failed=0 sched_seconds=0 sched_tasks=0
  local fuzz_runs=0 fuzz_seconds_sum=0 fuzz_tasks=0 crashes=0
  local problems=()
  while read -r line; do
    n=$((n + 1))
    name="$(unit_name "$line")"
    out="$dir/out/$name.txt"
    [ -f "$dir/done/$name" ] || continue
    finished=$((finished + 1))
    rc="$(cat "$dir/done/$name")"
    secs="$(awk '/^exit [0-9]+ seconds/ { print $4 }' "$out" | tail -n 1)"
    case "$name" in
    schedules-*)
      sched_tasks=$((sched_tasks + 1))
      read -r c s f <<< "$(sed -n 's/^done: \([0-9]*\) cases, \([0-9]*\) schedules.* \([0-9]*\) failed;.*/\1 \2 \3/p' "$out" | tail -n 1)"
      sched_cases=$((sched_cases + ${c:-0})); sched_schedules=$((sched_schedules + ${s:-0}))
      sched_failed=$((sched_failed + ${f:-0}))
      sched_seconds="$(calc "$sched_seconds + ${secs:-0}")"
      if [ "$rc" -gt 1 ]; then
        crashes=$((crashes + 1)); problems+=("$name: crashed (exit $rc): $(grep -m1 -E 'crash|signal|Case' "$out" || tail -n 2 "$out" | head -n 1)")
      elif [ "${f:-0}" -gt 0 ]; then
        problems+=("$name: $f wrong result(s), saved in $dir/failures/$name/")
      fi ;;
    fuzz-*)
      fuzz_tasks=$((fuzz_tasks + 1))
      runs="$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$out" | tail -n 1)"
      fuzz_runs=$((fuzz_runs + ${runs:-0}))
      fuzz_seconds_sum="$(calc "$fuzz_seconds_sum + ${secs:-0}")"
      if [ "$rc" -ne 0 ]; then
        crashes=$((crashes + 1))
        problems+=("$name: a finding (exit $rc): $(ls "$dir/failures/$name-"* 2> /dev/null | head -n 1): $(grep -m1 -E 'ERROR|deadly signal|Tracer caught' "$out")")
      elif ls "$dir/failures/$name-"*.not-reproduced > /dev/null 2>&1; then
        problems+=("$name: a failure that did not fail again alone (kept as $(ls "$dir/failures/$name-"*.not-reproduced | head -n 1)): $(grep -m1 -E 'ERROR|deadly signal|Tracer caught' "$out")")
      fi ;;
    esac
  done < "$units"
  {
    echo "Loopscope correctness campaign in $dir"
    echo "units: $finished of $n finished (each on one CPU)"
    if [ "$sched_tasks" -gt 0 ]; then
      rate="$(calc "$sched_schedules / ($sched_seconds + 0.001)")"
      echo "random schedules: $sched_cases programs, $sched_schedules schedules checked in $sched_tasks task(s), $sched_failed wrong; ${sched_seconds} CPU-seconds, $rate schedules per second per core"
      if [ "$sched_schedules" -gt 0 ]; then
        core_hours="$(calc "1000000 / $rate / 3600" 1)"
        echo "  a million schedules: $core_hours core-hours (on 10 nodes of 64 cores: $(calc "$core_hours * 60 / 640" 1) minutes)"
      fi
    fi
    if [ "$fuzz_tasks" -gt 0 ]; then
      frate="$(calc "$fuzz_runs / ($fuzz_seconds_sum + 0.001)" 1)"
      echo "fuzz targets: $fuzz_runs executions in $fuzz_tasks task(s), ${fuzz_seconds_sum} CPU-seconds, $frate executions per second per core"
      if [ "$fuzz_runs" -gt 0 ]; then
        fh="$(calc "10000000 / $frate / 3600" 1)"
        echo "  10^7 executions: $fh core-hours (on 10 nodes of 64 cores: $(calc "$fh * 60 / 640" 1) minutes)"
      fi
    fi
    echo "crashes and findings: $crashes"
    for p in "${problems[@]}"; do echo "  $p"; done
  } > "$r"
  cat "$r"
  [ "$crashes" -eq 0 ] && [ "$sched_failed" -eq 0 ]
}

if [ "$report_only" -eq 1 ]; then report; exit; fi

# What has not finished: those indexes only (a resumed campaign).
todo=()
i=0
while read -r line; do
  [ -f "$dir/done/$(unit_name "$line")" ] || todo+=("$i")
  i=$((i + 1))
done < "$units"
if [ "${#todo[@]}" -eq 0 ]; then
  echo "campaign: every unit of $dir has finished"
  report
  exit
fi
list="$(IFS=,; echo "${todo[*]}")"
echo "campaign: submitting ${#todo[@]} of $i unit(s) as an array job"
# shellcheck disable=SC2086
job="$(sbatch --parsable --job-name=loopscope-campaign --array="$list" --ntasks=1 --cpus-per-task=1 \
  --output="$dir/slurm/%A_%a.log" $extra "$dir/task.sh")"
echo "campaign: job $job; its report: scripts/campaign.sh --dir $dir --report"
if [ "$wait" -eq 1 ]; then
  while [ -n "$(squeue -h -j "${job%%;*}" 2> /dev/null)" ]; do sleep 2; done
  report
fi
