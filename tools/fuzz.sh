#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# in build-fuzz/, and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
harnesses=(yaml_fuzz results_fuzz solver_fuzz cli_fuzz)

usage() {
  cat <<'USAGE'
usage: tools/fuzz.sh HARNESS [--time DURATION] [--jobs N] [-- LIBFUZZER_ARGS...]
       tools/fuzz.sh --ci [HARNESS...]

  HARNESS      yaml_fuzz, results_fuzz, solver_fuzz or cli_fuzz (fuzz/README.md)
  --time       how long to fuzz: 90s, 30m, 1h (default 10m); new inputs that reach new coverage
               are merged into the checked-in corpus, fuzz/corpus/HARNESS, at the end
  --jobs       fuzzing processes side by side (default 1)
  --ci         each harness (or those named) replays its checked-in corpus, then runs on from a
               fixed seed up to its count of executions (fuzz/harnesses); the corpus is not changed
Crashes, leaks, timeouts and property violations are written to build-fuzz/findings/HARNESS/.
USAGE
}

# A harness's field in fuzz/harnesses ("dict", "max_len", "runs").
field() { awk -v h="$1" -v k="$2" '$1 == h { for (i = 2; i <= NF; ++i) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' fuzz/harnesses; }

# libFuzzer's options for every run: its dictionary, a timeout per input, the memory it may take.
fuzzer_options() {
  local dict
  dict=$(field "$1" dict)
  [[ $dict == none ]] || echo -n "-dict=fuzz/dict/$dict "
  echo "-timeout=20 -rss_limit_mb=6144 -max_len=$(field "$1" max_len)"
}

build() {
  # -O1 and line tables, as libFuzzer's docs advise: fast enough to fuzz, quick to build, and
  # reports name the lines. Assertions stay on.
  local options=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
                 "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DOPSFUZZ_BUILD_FUZZERS=ON
                 -DOPSFUZZ_BUILD_TESTS=OFF -DOPSFUZZ_BUILD_BENCH=OFF -DOPSFUZZ_WITH_PYTHON=OFF)
  bash tools/install_packages.sh "${options[@]}"
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/opsfuzz-ccache}"
  cmake -S . -B build-fuzz "${options[@]}" >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target "$@"
}

# Reports of code we do not build are suppressed, each with its reason (tools/sanitize.supp).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tools/sanitize.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/tools/sanitize.supp:${UBSAN_OPTIONS:-}"

if [[ ${1:-} == --ci ]]; then
  shift
  (($#)) && harnesses=("$@")
  build "${harnesses[@]}"
  for h in "${harnesses[@]}"; do
    runs=$(field "$h" runs)
    mkdir -p "build-fuzz/findings/$h"
    work=$(mktemp -d) log=build-fuzz/findings/$h/ci.log
    echo "fuzz: $h: the checked-in corpus ($(ls fuzz/corpus/$h | wc -l) inputs), then $runs executions in all"
    # shellcheck disable=SC2046
    build-fuzz/fuzz/$h $(fuzzer_options $h) -seed=1 -runs="$runs" -print_final_stats=1 \
      -artifact_prefix="build-fuzz/findings/$h/" "$work" "fuzz/corpus/$h" >"$log" 2>&1 && status=0 || status=$?
    rm -rf "$work"
    grep -aE "^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number|average)|property violated|runtime error|^==[0-9]+== ?ERROR|^SUMMARY" "$log" || true
    ((status == 0)) || { echo "fuzz: $h failed (exit $status): $log; the input is in build-fuzz/findings/$h/"; exit 1; }
  done
  exit 0
fi

[[ ${1:-} == -h || ${1:-} == --help || $# == 0 ]] && { usage; exit 0; }
h=$1; shift
[[ " ${harnesses[*]} " == *" $h "* ]] || { echo "fuzz.sh: no harness '$h' (${harnesses[*]})" >&2; exit 2; }
time=10m jobs=1
while (($#)); do
  case "$1" in
    --time) time=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "fuzz.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $time =~ ^([0-9]+)([smh]?)$ ]] || { echo "fuzz.sh: --time takes 90s, 30m or 1h, not '$time'" >&2; exit 2; }
case ${BASH_REMATCH[2]} in m) scale=60 ;; h) scale=3600 ;; *) scale=1 ;; esac
seconds=$((BASH_REMATCH[1] * scale))
parallel=()  # libFuzzer's -jobs runs even one job in a child process, its output in a file
((jobs > 1)) && parallel=(-jobs="$jobs" -workers="$jobs")
build "$h"
mkdir -p "build-fuzz/findings/$h" "build-fuzz/corpus/$h"
# shellcheck disable=SC2046
build-fuzz/fuzz/$h $(fuzzer_options $h) -max_total_time="$seconds" "${parallel[@]}" -print_final_stats=1 \
  -artifact_prefix="build-fuzz/findings/$h/" "build-fuzz/corpus/$h" "fuzz/corpus/$h" "$@" || status=$?
# What reached new coverage joins the checked-in corpus (its smallest inputs).
build-fuzz/fuzz/$h $(fuzzer_options $h) -merge=1 "fuzz/corpus/$h" "build-fuzz/corpus/$h" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
exit "${status:-0}"
