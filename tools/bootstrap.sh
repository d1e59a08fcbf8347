#!/usr/bin/env bash
# Installs the Debian packages opsfuzz needs, then configures and builds it (Release) in build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make ccache libtorch-dev libz3-dev libyaml-cpp-dev libboost-dev libgtest-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev python3-torch)
# The Python module (python/), built against python3-torch's libtorch.
[[ " $* " == *" -DOPSFUZZ_WITH_PYTHON=OFF "* ]] || packages+=(python3-dev python3-pybind11)
# The tests render the report in a real browser (tests/report/browser_test.py) and run the
# module's tests and example with pytest.
[[ " $* " == *" -DOPSFUZZ_BUILD_TESTS=OFF "* ]] || packages+=(chromium python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "opsfuzz: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/opsfuzz-ccache}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
