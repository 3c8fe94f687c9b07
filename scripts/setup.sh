#!/usr/bin/env bash
# Installs what Loopscope needs (Debian 12 packages), configures with CMake and Ninja, and builds.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake arguments...]
# LOOPSCOPE_SETUP_ONLY_PACKAGES=1 installs the packages and stops (CI uses it to time each phase).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
shift || true

# Every package both README commands need on a fresh Debian 12 (bookworm) machine, grouped by
# what needs it. `.ci/run` proves the list complete in a fresh minbase root.
packages=(
  # Building: the compiler, CMake with Ninja, and the compiler cache.
  cmake ninja-build g++ ccache pkg-config
  # The compiler core: LLVM 16 (code generation, linked as the shared libLLVM), JSON, diffing.
  llvm-16-dev nlohmann-json3-dev libdtl-dev
  # GPU kernels' math functions (exp, log, tanh) for NVPTX: libclc's bitcode, linked into the PTX.
  libclc-16
  # The OpenBLAS reference line (loaded at run time) and its headers.
  libopenblas-dev
  # The auto-tuner's cost model: XGBoost's C API.
  libxgboost-dev
  # The oneDNN reference line of convolutions (loaded at run time) and its headers.
  libdnnl-dev
  # ONNX models: the ONNX library (protobuf messages, checker, shape inference) and protobuf;
  # ONNX's own test cases for `model test` and the tests.
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # The desktop app: Qt 6 widgets, charts and SVG, and the QScintilla editor.
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqscintilla2-qt6-dev
  # Only because qt6-charts-dev's Debian packaging forgot it: Qt6Charts' CMake config requires
  # Qt6OpenGL (libqt6opengl6-dev), and Qt6Gui's requires the OpenGL headers (libgl-dev).
  libqt6opengl6-dev libgl-dev
  # Tests and benchmarks: GoogleTest, Google Benchmark; the window's tests under a virtual X server;
  # clang's CUDA mode, which compiles the CUDA C Loopscope exports (no CUDA toolkit).
  libgtest-dev libbenchmark-dev xvfb xauth clang
  # The Debian package (CPack): dpkg-shlibdeps computes Depends:, CPack finds ELF files with
  # `file`; its tests validate the desktop entry, the AppStream metadata and the MIME type.
  dpkg-dev file desktop-file-utils appstream shared-mime-info
)

"$here/scripts/install-missing.sh" "${packages[@]}"

if [ -n "${LOOPSCOPE_SETUP_ONLY_PACKAGES:-}" ]; then exit 0; fi

cmake -S "$here" -B "$build" -G Ninja "$@" > /dev/null
# Two cores: keep the build to what the machine can take.
cmake --build "$build" -j "$(nproc)"
