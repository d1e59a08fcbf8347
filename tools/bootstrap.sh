#!/usr/bin/env bash
# Installs the Debian packages opsfuzz needs, then configures and builds it (Release) in build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_packages.sh "$@"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/opsfuzz-ccache}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
