#!/usr/bin/env bash
# Builds opsfuzz with AddressSanitizer and UndefinedBehaviorSanitizer (our code; libtorch stays
# uninstrumented) in build-sanitize/ and runs the whole CTest suite there. Extra arguments go to
# ctest (-R, -E, -j...). Takes long: not part of every CI run (.ci/run replays the fuzz corpora).
#   tools/sanitize.sh                 # every test
#   tools/sanitize.sh -R '^Suite'     # some
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/opsfuzz-ccache}"
# The Python module's tests run Debian's python3, which is not instrumented: the module loads
# into it with the sanitizers' runtime preloaded (python/CMakeLists.txt).
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSFUZZ_SANITIZE=address,undefined \
  -DOPSFUZZ_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize -j"$(nproc)"

# Workers that crash a kernel on purpose (segfaults, aborts, SIGFPE in libtorch) die by the
# signal, as without the sanitizers: the runner tells crashes by it. Leaks: every report fails,
# but those of libtorch's own allocations, suppressed with their reasons in the file.
export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tools/sanitize.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/tools/sanitize.supp:${UBSAN_OPTIONS:-}"
ctest --test-dir build-sanitize --output-on-failure -j2 "$@"
