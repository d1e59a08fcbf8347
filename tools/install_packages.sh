#!/usr/bin/env bash
# Installs (as root) the Debian packages that a build with the CMake options given needs, those
# not installed yet; quiet when none is missing. tools/bootstrap.sh and tools/fuzz.sh call it.
set -euo pipefail
options=" $* "
packages=(cmake g++ make ccache libtorch-dev libz3-dev libyaml-cpp-dev libboost-dev libgtest-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev python3-torch)
# The Python module (python/), built against python3-torch's libtorch.
[[ $options == *" -DOPSFUZZ_WITH_PYTHON=OFF "* ]] || packages+=(python3-dev python3-pybind11)
# The tests render the report in a real browser (tests/report/browser_test.py) and run the
# module's tests and example with pytest.
[[ $options == *" -DOPSFUZZ_BUILD_TESTS=OFF "* ]] || packages+=(chromium python3-pytest)
# The fuzzers (fuzz/): clang's libFuzzer, and the C++ library headers clang compiles libtorch's
# with (CMakeLists.txt).
[[ $options != *" -DOPSFUZZ_BUILD_FUZZERS=ON "* ]] || packages+=(clang libclang-rt-14-dev libstdc++-11-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "opsfuzz: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
