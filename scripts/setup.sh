#!/usr/bin/env bash
# Installs what Loopscope needs (Debian 12 packages), configures with CMake and Ninja, and builds.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake arguments...]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
shift || true

packages=(
  cmake ninja-build g++ ccache pkg-config libdtl-dev
  libgtest-dev libbenchmark-dev nlohmann-json3-dev
  llvm-16-dev libopenblas-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqscintilla2-qt6-dev libgl-dev
  xvfb xauth
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S "$here" -B "$build" -G Ninja "$@" > /dev/null
# Two cores: keep the build to what the machine can take.
cmake --build "$build" -j "$(nproc)"
