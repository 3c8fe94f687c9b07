#!/usr/bin/env bash
# The habits CI holds the tree to beyond the tests: the formatting of .clang-format everywhere,
# clang-tidy's checks of .clang-tidy on core/, and the core and command-line tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer (clang), and the libFuzzer targets run for a bounded time
# (scripts/fuzz.sh; LOOPSCOPE_FUZZ_SECONDS a target, default 60).
# Usage: scripts/check.sh [format] [tidy] [sanitize] [fuzz]   (default: all four, in that order)
# Installs clang-format and clang-tidy when missing; expects scripts/setup.sh to have run (tidy
# reads build/compile_commands.json).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
checks=("$@")
((${#checks[@]})) || checks=(format tidy sanitize fuzz)

"$here/scripts/install-missing.sh" clang-format clang-tidy

# The C++ files under a folder (default: the whole tree), without build trees: git's list in a
# clone, else (a copy without .git, as in CI's root) what find sees.
cxx_files() {
  local dir="${1:-.}"
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git ls-files -- "$dir/*.cpp" "$dir/*.h" "$dir/**/*.cpp" "$dir/**/*.h" | sort -u
  else
    find "$dir" \( -name 'build*' -prune \) -o \( -name '*.cpp' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort
  fi
}

for check in "${checks[@]}"; do
  case "$check" in
  format)
    echo "== clang-format --dry-run -Werror over every C++ file ($(cxx_files | wc -l) files)"
    cxx_files | xargs clang-format --dry-run -Werror
    echo "format: clean"
    ;;
  tidy)
    echo "== clang-tidy on core/ ($(cxx_files core | grep -c '\.cpp$') files, checks in .clang-tidy)"
    [ -f build/compile_commands.json ] || { echo "tidy: run scripts/setup.sh first"; exit 1; }
    cxx_files core | grep '\.cpp$' | xargs -P "$(nproc)" -n 4 clang-tidy -p build --quiet
    echo "tidy: clean"
    ;;
  sanitize)
    echo "== the core and command-line tests with AddressSanitizer and UndefinedBehaviorSanitizer"
    rm -f /tmp/check-sanitize.log
    scripts/configure-sanitize.sh
    # The core's layers (the models' and the differential tests' aside: they take the longest) and
    # the command-line tool.
    programs=()
    for layer in te schedule ir lower explore codegen runtime export protocol tune; do
      programs+=("loopscope_core_${layer}_tests")
    done
    programs+=(loopscope_app_cli_tests)
    cmake --build build-sanitize -j "$(nproc)" --target "${programs[@]}" loopscope-cli
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    for t in "${programs[@]}"; do
      # LeakSanitizer's own tracer can crash while it stops the threads at exit ("Tracer caught
      # signal 11 ... LeakSanitizer has encountered a fatal error"), after every test passed: a
      # crash of the checker, not a finding. Then the binary runs once more; a leak, a sanitizer
      # report or a failed test fails at once, and a second crash fails too.
      for attempt in 1 2; do
        status=0
        build-sanitize/tests/$t --gtest_brief=1 > /tmp/check-sanitize-run.log 2>&1 || status=$?
        tee -a /tmp/check-sanitize.log < /tmp/check-sanitize-run.log
        ((status == 0)) && break
        if ((attempt == 1)) && grep -q 'LeakSanitizer has encountered a fatal error' /tmp/check-sanitize-run.log &&
          grep -q '^\[  PASSED  \]' /tmp/check-sanitize-run.log &&
          ! grep -qE '^\[  FAILED  \]|ERROR: (Address|Leak)Sanitizer:|runtime error:' /tmp/check-sanitize-run.log; then
          echo "sanitize: LeakSanitizer's tracer crashed after every test of $t passed; running $t again"
          continue
        fi
        echo "sanitize: $t failed (exit $status)"
        exit 1
      done
    done
    echo "sanitize: clean"
    ;;
  fuzz)
    echo "== the libFuzzer targets (script front end, schedules), ${LOOPSCOPE_FUZZ_SECONDS:-60} s each"
    scripts/fuzz.sh --seconds "${LOOPSCOPE_FUZZ_SECONDS:-60}" 2>&1 | tee /tmp/check-fuzz.log
    ;;
  *)
    echo "unknown check '$check' (format, tidy, sanitize or fuzz)" >&2
    exit 2
    ;;
  esac
done
