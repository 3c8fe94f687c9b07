#!/usr/bin/env bash
# Tuning through Slurm, for real: a cluster of one node on this machine (scripts/slurm-local.sh:
# munged, slurmctld and slurmd), then
#   1. `loopscope-cli tune` with two workers started by srun, its records naming the machine;
#   2. the same with one worker killed (SIGKILL) in the middle: every trial still ends checked and
#      timed, and the lost candidate is measured again on the other runner;
#   3. `model tune` of a small model with the same options, its project file written;
#   4. the random-schedule campaign as a Slurm array job (scripts/campaign.sh), a short one;
#   5. runners started by ssh (scripts/ssh-local.sh: an sshd on 127.0.0.1): the GPU runner for
#      `run` (no GPU here: the run says so and checks on the CPU) and two workers for `tune`.
# Needs root (the daemons); the build must exist (scripts/test.sh made it). Stops the cluster at
# the end.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
cli="$build/app/loopscope-cli"
worker="$build/app/loopscope-worker"
state="${LOOPSCOPE_SLURM_DIR:-/tmp/loopscope-slurm-test}"
work="$(mktemp -d /tmp/loopscope-slurm-test.XXXXXX)"

say() { printf '\n== test-slurm: %s\n' "$*"; }
fail() {
  printf 'test-slurm: FAILED: %s\n' "$*" >&2
  exit 1
}
cleanup() {
  "$here/scripts/slurm-local.sh" stop "$state" || true
  rm -rf "$work"
}
trap cleanup EXIT

[ -x "$cli" ] && [ -x "$worker" ] || fail "no build at $build (run scripts/test.sh first)"
say "starting a cluster of one node"
eval "$("$here/scripts/slurm-local.sh" start "$state")"
sinfo

runner="srun -N1 -n1 --quiet $worker"

say "1. tune through two srun-started workers"
"$cli" tune "$here/samples/opt_gemm.py" --set M=128 --set N=128 --set K=128 --trials 12 \
  --threads 1 --runner "$runner" --runners 2 --log "$work/tune.jsonl" > "$work/tune.out" 2> "$work/tune.err" ||
  { cat "$work/tune.err" "$work/tune.out"; fail "tune through srun failed"; }
cat "$work/tune.out" | grep -E "^(tuned|best|runner|the host)"
grep -q "measuring on 2 runners" "$work/tune.err" || fail "tune did not say it measures on 2 runners"
[ "$(grep -c '"status":"ok"' "$work/tune.jsonl")" -ge 12 ] || fail "fewer than 12 checked records"
grep -q "\"host\":\"$(hostname)\"" "$work/tune.jsonl" || fail "the records do not name the host"
[ -z "$(squeue -h)" ] || { squeue; fail "jobs are left in the queue after tune ended"; }

say "2. a worker killed while tuning costs one measurement"
"$cli" tune "$here/samples/opt_gemm.py" --set M=192 --set N=192 --set K=192 --trials 32 \
  --threads 1 --runner "$runner" --runners 2 --log "$work/kill.jsonl" > "$work/kill.out" 2> "$work/kill.err" &
tuner=$!
for _ in $(seq 600); do
  [ -f "$work/kill.jsonl" ] && [ "$(wc -l < "$work/kill.jsonl")" -ge 6 ] && break
  kill -0 "$tuner" 2> /dev/null || break
  sleep 0.1
done
victim="$(pgrep -n -f "^$worker" || true)"
[ -n "$victim" ] || fail "no worker under Slurm to kill"
echo "killing worker $victim (under $(ps -o comm= -p "$(ps -o ppid= -p "$victim" | tr -d ' ')"))"
kill -KILL "$victim"
wait "$tuner" || { cat "$work/kill.err"; fail "tune failed after a worker was killed"; }
grep -E "^note: runner" "$work/kill.err" || true
grep -q "measured again on another runner\|set aside" "$work/kill.err" ||
  fail "the killed worker's candidate was not measured again"
ok="$(grep -c '"status":"ok"' "$work/kill.jsonl")"
bad="$(grep -c '"status":"crashed"\|"status":"timeout"' "$work/kill.jsonl" || true)"
echo "records: $ok checked and timed, $bad crashed or timed out"
[ "$bad" -eq 0 ] || fail "a killed worker cost a trial: $bad record(s) crashed or timed out"
grep -E "^runner" "$work/kill.out"

say "3. model tune of a small model through the same runners"
cp "$here/samples/models/mobilenet_tiny/model.onnx" "$work/tiny.onnx"
"$cli" model tune "$work/tiny.onnx" --top 2 --trials 8 --threads 1 --runner "$runner" --runners 2 \
  > "$work/model.out" 2> "$work/model.err" || { cat "$work/model.err"; fail "model tune through srun failed"; }
tail -n 6 "$work/model.err"
cat "$work/model.out"
grep -q '"use"' "$work/tiny.loopscope.json" || fail "model tune wrote no choice into the project file"
"$cli" model run "$work/tiny.onnx" --check > /dev/null || fail "the tuned model does not check"

say "4. the campaign as a Slurm array job"
"$here/scripts/campaign.sh" --dir "$work/campaign" --tasks 2 --schedules 40 --fuzz-seconds 5 --wait || {
  for f in $(grep -l "^exit [1-9]" "$work"/campaign/out/*.txt); do echo "== $f"; tail -n 60 "$f"; done
  fail "the campaign failed"
}
cat "$work/campaign/report.txt"

say "5. runners started by ssh (an sshd on 127.0.0.1)"
ssh_state="$work/ssh"
ssh_command="$("$here/scripts/ssh-local.sh" start "$ssh_state" 2222)"
trap '"$here/scripts/ssh-local.sh" stop "$ssh_state" || true; cleanup' EXIT
"$cli" run "$here/samples/gpu/matmul_cuda.py" --set N=64 --variant "shared tiles" --check --json \
  --runner "$ssh_command $build/app/loopscope-runner" > "$work/gpu.json" 2> "$work/gpu.err" ||
  { cat "$work/gpu.err"; fail "run through a GPU runner started by ssh failed"; }
grep -q '"gpu"' "$work/gpu.json" || fail "the run's record does not name the GPU runner"
grep -q "\"host\": \"$(hostname)\"" "$work/gpu.json" || fail "the GPU runner's host is not recorded"
head -n 1 "$work/gpu.err"
"$cli" tune "$here/samples/opt_gemm.py" --set M=96 --set N=96 --set K=96 --trials 6 --threads 1 \
  --runner "$ssh_command $worker" --runners 2 --log "$work/ssh.jsonl" > "$work/ssh.out" 2> "$work/ssh.err" ||
  { cat "$work/ssh.err"; fail "tune through ssh-started workers failed"; }
grep -E "^runner" "$work/ssh.out"

say "passed"
