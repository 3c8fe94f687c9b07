#!/usr/bin/env bash
# The worker's trust boundary: it takes requests only on the standard input the window that
# started it holds (a pipe), answers on standard output, and opens no socket or other way in.
# While it measures a sample (JIT, thread pool, OpenBLAS loaded), every descriptor it holds is
# checked. Usage: worker_boundary.sh WORKER SAMPLE
set -euo pipefail
worker="$1" sample="$2"
dir="$(mktemp -d)"
trap 'kill "$pid" 2> /dev/null || true; rm -rf "$dir"' EXIT
mkfifo "$dir/in"
"$worker" < "$dir/in" > "$dir/out" 2> "$dir/err" &
pid=$!
exec 3> "$dir/in"
# The sample as a JSON string (it has no tabs or control characters).
script="$(sed -e ':a;N;$!ba' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\n/\\n/g' -e 's/^/"/' -e 's/$/"/' "$sample")"
echo '{"id": 1, "cmd": "ping"}' >&3
echo "{\"id\": 2, \"cmd\": \"measure\", \"script\": $script, \"sets\": {\"N\": 4096}, \"repeat\": 1}" >&3
for _ in $(seq 100); do
  grep -q '"id":2' "$dir/out" 2> /dev/null && break
  sleep 0.1
done
grep -q '"id":2' "$dir/out" || { echo "FAILED: no answer to the measure request"; cat "$dir/err"; exit 1; }
fail=0
for fd in /proc/"$pid"/fd/*; do
  target="$(readlink "$fd" || true)"
  case "$target" in
  socket:*) echo "FAILED: descriptor $(basename "$fd") is a socket ($target)"; fail=1 ;;
  *) echo "ok: descriptor $(basename "$fd"): $target" ;;
  esac
done
exec 3>&-
wait "$pid" || true
[ "$fail" -eq 0 ] && echo "ok: the worker holds no socket; it answered on its pipes"
exit "$fail"
