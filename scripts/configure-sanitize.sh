#!/usr/bin/env bash
# Configures build-sanitize: clang, AddressSanitizer and UndefinedBehaviorSanitizer, -O1 with line
# tables. The sanitized tests (scripts/check.sh sanitize) and the libFuzzer targets
# (scripts/fuzz.sh) build there from one set of objects. Installs clang, its sanitizer
# runtimes and its OpenMP (bench/ compares the thread pool with OpenMP; gcc's comes with gcc,
# clang's is a package of its own) when missing; starts again from an empty folder when an earlier configure chose
# another compiler.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

"$here/scripts/install-missing.sh" clang libclang-rt-14-dev libomp-14-dev

if [ -f build-sanitize/CMakeCache.txt ] &&
  ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build-sanitize/CMakeCache.txt; then
  echo "build-sanitize was configured with another compiler: starting it again with clang"
  rm -rf build-sanitize
fi
CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DLOOPSCOPE_SANITIZE=ON > /dev/null
