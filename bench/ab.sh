#!/usr/bin/env bash
# Compares the generation rate of two or more builds of generation_bench on one benchmark, in
# interleaved rounds: on these machines one binary's rate moves by up to ±30 % over minutes, so
# only builds timed in the same minutes compare. Prints each round, then each build's median and
# its ratio to the first build's.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/ab.sh [--rounds N] [--min-time S] BENCHMARK BENCH_A BENCH_B [BENCH...]

  BENCHMARK   one benchmark of generation_bench, e.g. valid/convolution.default
  BENCH_*     generation_bench binaries of the builds to compare (the first is the baseline)
  --rounds    rounds, each running every build once in turn (default 5)
  --min-time  --benchmark_min_time of each run, in seconds (default 0.3)

example (HEAD against an earlier commit):
  git worktree add /tmp/base <commit> && cmake -S /tmp/base -B /tmp/base/build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build /tmp/base/build --target generation_bench &&
  bench/ab.sh valid/convolution.default /tmp/base/build/bench/generation_bench build/bench/generation_bench
EOF
}

rounds=5 min_time=0.3
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    *) break ;;
  esac
done
(($# >= 3)) || { usage >&2; exit 2; }
benchmark=$1; shift
for b in "$@"; do [[ -x $b ]] || { echo "bench/ab.sh: $b is not an executable" >&2; exit 2; }; done
filter="^${benchmark//./\\.}\$"  # op names hold letters, digits, _, . and /

# One run's tuples/s, as a plain number (Google Benchmark prints 71.5k/s, 1.2M/s).
rate() {
  local out
  out=$("$1" --benchmark_filter="$filter" --benchmark_min_time="$min_time" 2>/dev/null | grep -o -m1 'tuples/s=[0-9.]*[kMG]\?') ||
    { echo "bench/ab.sh: $1 ran no benchmark matching $benchmark" >&2; exit 1; }
  awk -v r="${out#tuples/s=}" 'BEGIN { n = r + 0; u = substr(r, length(r));
    printf "%.0f", n * (u == "k" ? 1e3 : u == "M" ? 1e6 : u == "G" ? 1e9 : 1) }'
}

declare -a rates  # rates[build * rounds + round]
for ((r = 0; r < rounds; ++r)); do
  line="round $((r + 1)):"
  for ((b = 1; b <= $#; ++b)); do
    rates[(b - 1) * rounds + r]=$(rate "${!b}")
    line+=" ${rates[(b - 1) * rounds + r]}"
  done
  echo "$line tuples/s" >&2
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(median "${rates[@]:0:rounds}")
for ((b = 1; b <= $#; ++b)); do
  m=$(median "${rates[@]:(b - 1) * rounds:rounds}")
  awk -v name="${!b}" -v m="$m" -v base="$base" 'BEGIN { printf "%s: median %.0f tuples/s, %.2fx the first\n", name, m, m / base }'
done
