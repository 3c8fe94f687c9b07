#!/usr/bin/env bash
# Runs the tests again on a machine that says less about itself: what a virtual machine, a
# container or a CPU newer than LLVM 16 looks like to Loopscope. In a mount namespace of its own
# (nothing outside it changes):
#   - sysfs lists no caches (every /sys/devices/system/cpu/cpu*/cache is an empty folder), so the
#     caches come from CPUID;
#   - there is no cpufreq (the clock comes from /proc/cpuinfo);
#   - one core is online (/sys/devices/system/cpu/online says "0");
#   - LLVM's host detection is taken to answer "generic", as LLVM 16 does on a Zen 5
#     (LOOPSCOPE_LLVM_HOST_CPU), so code is generated for the nearest model it knows.
# First it checks that the command-line tool says so; then it runs every test, and then the tests
# that count cores, run generated code or open the window once more on one core (taskset -c 0:
# the process may run on one, as under a container's or a cluster's CPU set).
# Usage: scripts/test-hidden-facts.sh [BUILD_DIR]   (after scripts/test.sh; needs root for mounts)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-${BUILD_DIR:-$here/build}}" && pwd)"

if [ -z "${LOOPSCOPE_FACTS_HIDDEN:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "test-hidden-facts: needs root (mounts in a namespace of its own)" >&2; exit 1; }
  command -v unshare > /dev/null || { echo "test-hidden-facts: needs unshare (util-linux)" >&2; exit 1; }
  # Propagation stays as it is at first: in a chroot (as CI runs this) "/" is no mount point,
  # and unshare cannot make it private. /sys is made private below, before anything is hidden.
  exec unshare --mount --propagation unchanged env LOOPSCOPE_FACTS_HIDDEN=1 "$0" "$build"
fi

# ---- inside the namespace: hide the facts ----------------------------------------------------
# Nothing mounted on /sys from here may reach the namespace this was started from.
mount --make-rprivate /sys || { echo "test-hidden-facts: cannot make /sys private" >&2; exit 1; }
empty="$(mktemp -d)"
online="$(mktemp)"
trap 'rm -rf "$empty" "$online"' EXIT
cpu=/sys/devices/system/cpu
hidden=()
for d in "$cpu"/cpu[0-9]*/cache "$cpu"/cpu[0-9]*/cpufreq "$cpu"/cpufreq; do
  [ -d "$d" ] || continue
  mount --bind "$empty" "$d"
  hidden+=("$d")
done
echo 0 > "$online"
[ -e "$cpu/online" ] && mount --bind "$online" "$cpu/online"
export LOOPSCOPE_LLVM_HOST_CPU=generic
echo "hidden: ${#hidden[@]} sysfs folders (caches, cpufreq); online: $(cat "$cpu/online"); LLVM's CPU: generic"

fail() { echo "test-hidden-facts: FAILED: $*" >&2; exit 1; }
[ -z "$(ls -A "$cpu/cpu0/cache" 2> /dev/null)" ] || fail "sysfs still lists cpu0's caches"

# ---- the product says what it read ---------------------------------------------------------
cli="$build/app/loopscope-cli"
facts="$(taskset -c 0 "$cli" machine --threads 1 --json)" || fail "loopscope-cli machine failed"
echo "$facts" | grep -E '"(cpu|llvm_cpu|cpu_note|caches_source|usable_cores)"'
echo "$facts" | grep -q '"caches_source": "CPUID"' || fail "the caches did not come from CPUID"
echo "$facts" | grep -q '"llvm_cpu": "generic"' || fail "LLVM's CPU name was not taken as generic"
echo "$facts" | grep -q '"cpu": "generic"' && fail "no nearer CPU model than generic was chosen"
echo "$facts" | grep -q '"usable_cores": 1,' || fail "more than the one usable core was counted"
# One core online, but this process may run on every core of its affinity: those are used.
cores="$(nproc)"
"$cli" machine --threads 1 --json | grep -q "\"usable_cores\": $cores," ||
  fail "the cores of the process's affinity ($cores) were not the ones counted"
"$cli" lower "$here/samples/opt_gemm.py" --variant baseline --footprint |
  grep -q 'from CPUID)' || fail "lower --footprint did not name CPUID as the source"

# ---- every test, then those that count cores or run code, on one core -------------------------
cd "$build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$cores"
echo "== on one core (taskset -c 0)"
QT_QPA_PLATFORM=offscreen taskset -c 0 ctest --output-on-failure -j 1 \
  -R '^(Host|HostCpu|Footprint|Microbench|ThreadPoolTest|Sweep|CliMachine|CliUsage|CliAnalysis|CliSweep|CliLower|Desktop|LadderRunTest|WorkerMeasurer|RequestHandlerTest|MainWindowTest)([./]|$)'
