#!/usr/bin/env bash
# Command-line manners of one executable: --help and --version answer at once, without a display
# and without doing work (exit 0, on stdout); an unknown option is refused with exit 2 and the
# usage on stderr. Usage: command_line_manners.sh EXECUTABLE NAME VERSION
set -uo pipefail
exe="$1" name="$2" version="$3"
fail=0
# No display of any kind: a program that needs one for --help fails here.
run() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM timeout 10 "$exe" "$@" >"$out" 2>"$err"; }
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT

check() {  # check WHAT CONDITION...
  local what="$1"; shift
  if "$@"; then echo "ok: $name $what"; else echo "FAILED: $name $what"; fail=1; fi
}

run --help; code=$?
check "--help exits 0 (got $code)" test "$code" -eq 0
check "--help prints a usage on stdout" grep -qi "usage:" "$out"

run --version; code=$?
check "--version exits 0 (got $code)" test "$code" -eq 0
check "--version prints '$name $version'" grep -q "^$name $version" "$out"

run --no-such-option; code=$?
check "an unknown option exits 2 (got $code)" test "$code" -eq 2
check "an unknown option prints the usage on stderr" grep -qi "usage:" "$err"

if [ "$fail" -ne 0 ]; then
  echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"
fi
exit "$fail"
