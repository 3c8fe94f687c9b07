#!/usr/bin/env bash
# Sets up, builds and packs Loopscope as a Debian package: build/loopscope_VERSION_ARCH.deb.
# Install it with: sudo apt-get install ./build/loopscope_*.deb
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh" "$build"
cd "$build"
cpack -G DEB
