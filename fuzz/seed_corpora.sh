#!/usr/bin/env bash
# Writes the seed inputs of the checked-in corpora (fuzz/corpus/HARNESS/seed-*) from the project's
# own files and from a small run of a Release build (build/ops-fuzz, tools/bootstrap.sh builds
# it). The inputs that tools/fuzz.sh merges in later are kept. Run by hand after the formats change.
set -euo pipefail
cd "$(dirname "$0")/.."
ops_fuzz=build/ops-fuzz
corpus=fuzz/corpus
rm -f $corpus/*/seed-*
mkdir -p $corpus/{yaml_fuzz,results_fuzz,solver_fuzz,cli_fuzz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ops=(add.Tensor mm.default sum.dim_IntList cat.default where.self convolution.default avg_pool2d.default
     view_copy.default index_select.default clamp.default div.Tensor_mode embedding.default)

# yaml_fuzz: the suites of the tests and docs, and generated suites.
for f in tests/suite/data/*.yaml tests/suite/data/include/*.yaml tests/data/check/*.yaml tests/testing/data/*.yaml; do
  cp "$f" "$corpus/yaml_fuzz/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done
python3 - "$corpus/yaml_fuzz" docs/yaml-format.md <<'PY'
import re, sys
out, doc = sys.argv[1], open(sys.argv[2]).read()
for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc, re.S)):
    open(f"{out}/seed-doc-{i:02d}.yaml", "w").write(block)
PY
for op in "${ops[@]}"; do
  $ops_fuzz generate "$op" --max 1 --format yaml > "$corpus/yaml_fuzz/seed-generated-$op.yaml"
  $ops_fuzz generate "$op" --max 1 --invalid --format yaml > "$corpus/yaml_fuzz/seed-generated-invalid-$op.yaml" || true
done

# results_fuzz: a run's results, a hunt's results and findings, a sweep report, a merge of shards.
$ops_fuzz run --ops add.Tensor,mm.default,where.self --max 3 --backends 'eager_cpu;eager_cpu_noncontig' \
  --out "$work/run.jsonl" >/dev/null || true
cp "$work/run.jsonl" "$corpus/results_fuzz/seed-run.jsonl"
$ops_fuzz run --ops add.Tensor --max 2 --shard 0/2 --out "$work/shard0.jsonl" >/dev/null || true
cp "$work/shard0.jsonl" "$corpus/results_fuzz/seed-shard.jsonl"
$ops_fuzz hunt --ops add.Tensor --configs default --max 100 --backends 'torchscript_cpu' --baseline eager_cpu \
  --out "$work/hunt" >/dev/null 2>&1 || true
head -12 "$work/hunt/results.jsonl" > "$corpus/results_fuzz/seed-hunt-results.jsonl"  # its meta record, then items
cp "$work/hunt/findings.jsonl" "$corpus/results_fuzz/seed-hunt-findings.jsonl"
$ops_fuzz sweep add.Tensor mm.default --max 5 --json "$work/sweep.json" >/dev/null || true
cp "$work/sweep.json" "$corpus/results_fuzz/seed-sweep.json"

# solver_fuzz: one input per spec (its index, big-endian in two bytes; seed 0, the default
# config, valid, index 0) and, for each, its invalid stream.
python3 - "$corpus/solver_fuzz" "$($ops_fuzz list-specs | grep -c "(")" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    for invalid in (0, 1):
        spec, seed, words, flags, index = i.to_bytes(2, "big"), bytes(8), bytes(4), bytes([invalid]), bytes([0])
        open(f"{out}/seed-spec-{i:03d}{'-invalid' if invalid else ''}", "wb").write(spec + seed + words + flags + index)
PY

# cli_fuzz: the commands of the README and the docs, arguments separated by NUL bytes.
python3 - "$corpus/cli_fuzz" README.md docs/*.md <<'PY'
import re, shlex, sys
out, seen = sys.argv[1], set()
for doc in sys.argv[2:]:
    for line in open(doc):
        m = re.search(r"(?:\./build/)?ops-fuzz ([a-z-]+(?: [^#`|>]*)?)", line)
        if not m: continue
        try: args = shlex.split(m.group(1).strip())
        except ValueError: continue
        key = "\0".join(args)
        if key in seen: continue
        seen.add(key)
        open(f"{out}/seed-{len(seen):03d}", "wb").write(key.encode())
PY
echo "seed corpora: $(for h in $corpus/*; do echo -n "$(basename $h) $(ls $h | wc -l)  "; done)"
