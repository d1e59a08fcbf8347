#!/usr/bin/env bash
# Compares the generation rate of two or more builds (or benchmarks) of generation_bench, in
# interleaved rounds, every run pinned to one CPU. On these machines one of the two CPUs at times
# runs at about 2/3 of the other's speed, for minutes, and which one changes: a run that migrates
# or a build timed apart from its baseline says little. Prints each round, then each build's
# median rate and the median over rounds of its ratio to the first build's.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/ab.sh [--rounds N] [--min-time S] [--cpu C] BENCHMARK BENCH_A BENCH_B [BENCH...]

  BENCHMARK   one benchmark of generation_bench, e.g. valid/convolution.default
  BENCH_*     generation_bench binaries of the builds to compare (the first is the baseline);
              BINARY:OTHER times benchmark OTHER of that binary instead
  --rounds    rounds, each running every build once in turn (default 5)
  --min-time  --benchmark_min_time of each run, in seconds (default 0.3)
  --cpu       the CPU every run is pinned to (default 0)

examples:
  # HEAD against an earlier commit
  git worktree add /tmp/base <commit> && cmake -S /tmp/base -B /tmp/base/build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build /tmp/base/build --target generation_bench &&
  bench/ab.sh valid/convolution.default /tmp/base/build/bench/generation_bench build/bench/generation_bench
  # the joint machinery's cost: one contract, per-variable rules against joint constraints
  bench/ab.sh hand_written/convolution.default build/bench/generation_bench \
    build/bench/generation_bench:hand_written_as_joint/convolution.default
EOF
}

rounds=5 min_time=0.3 cpu=0
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) break ;;
  esac
done
(($# >= 3)) || { usage >&2; exit 2; }
benchmark=$1; shift
builds=("$@")
for b in "${builds[@]}"; do [[ -x ${b%%:*} ]] || { echo "bench/ab.sh: ${b%%:*} is not an executable" >&2; exit 2; }; done

# One run's tuples/s, as a plain number (Google Benchmark prints 71.5k/s, 1.2M/s).
rate() {
  local binary=${1%%:*} name=$benchmark out
  [[ $1 == *:* ]] && name=${1#*:}
  out=$(taskset -c "$cpu" "$binary" --benchmark_filter="^${name//./\\.}\$" --benchmark_min_time="$min_time" 2>/dev/null |
        grep -o -m1 'tuples/s=[0-9.]*[kMG]\?') ||
    { echo "bench/ab.sh: $binary ran no benchmark matching $name on CPU $cpu" >&2; exit 1; }
  awk -v r="${out#tuples/s=}" 'BEGIN { n = r + 0; u = substr(r, length(r));
    printf "%.0f", n * (u == "k" ? 1e3 : u == "M" ? 1e6 : u == "G" ? 1e9 : 1) }'
}

declare -a rates ratios  # [build * rounds + round]
for ((r = 0; r < rounds; ++r)); do
  line="round $((r + 1)):"
  for ((b = 0; b < ${#builds[@]}; ++b)); do
    rates[b * rounds + r]=$(rate "${builds[b]}")
    ratios[b * rounds + r]=$(awk -v x="${rates[b * rounds + r]}" -v base="${rates[r]}" 'BEGIN { printf "%.4f", x / base }')
    line+=" ${rates[b * rounds + r]}"
  done
  echo "$line tuples/s" >&2
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for ((b = 0; b < ${#builds[@]}; ++b)); do
  awk -v name="${builds[b]}" -v m="$(median "${rates[@]:b * rounds:rounds}")" -v ratio="$(median "${ratios[@]:b * rounds:rounds}")" \
    'BEGIN { printf "%s: median %.0f tuples/s, %.2fx the first (median of the rounds)\n", name, m, ratio }'
done
