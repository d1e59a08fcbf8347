"""FACTO's generator against opsfuzz's FACTO-shaped adapter, in one Python process.

For each op of bench/facto-rates.tsv (the FACTO specs whose op exists in libtorch 1.13) it
measures the valid tuples per second of FACTO's own ArgumentTupleGenerator and of opsfuzz's
(`opsfuzz.facto`), one after the other in this process, and prints a table: op, FACTO's
tuples/s, opsfuzz's tuples/s and their ratio (opsfuzz / FACTO), then a summary (the least
ratio and its op, the median ratio, how many ops are at 50x or more) and the ops a side failed
on, with the error.

Run it pinned to one CPU (one of the two CPUs of these machines at times runs at about 2/3 of
the other's speed), with Debian's interpreter (it has torch), from the project's root:

    taskset -c 1 /usr/bin/python3 bench/facto_python.py --facto /tmp/facto

`--facto` is a folder holding FACTO's public repository (github meta-pytorch/FACTO); opsfuzz is
imported from build/python (its Python module's build folder) unless already on PYTHONPATH.

The Python module's overhead: with `--cpp-json FILE`, the C++ rates of the same ops, from

    taskset -c 1 build/bench/generation_bench --benchmark_filter='^valid/' --benchmark_format=json > FILE

(the same streams, one thread), are shown beside opsfuzz's, with opsfuzz's Python rate as a
share of them.

How each figure is counted (the FACTO-style loop): per op, each generator is built once from
its own SpecDictDB[op] (not timed), then full rounds of `for posargs, inkwargs, outargs in
gen.gen()`, counting the tuples and nothing more, are run, calling gen() anew each round. The two
take turns, --slices times (FACTO first), each turn lasting at least one round and --min-time /
--slices seconds: a turn's tuples/s is the tuples its rounds yielded over their time
(perf_counter). A side's figure is the median of its turns, the ratio the median of the turns'
ratios (opsfuzz's turn over the FACTO turn before it), so that the minutes-long changes of these
CPUs' speed fall on both sides of a ratio. The op is never called. Python's `random` and torch's RNG are seeded once at
start (--seed); FACTO draws from its own generators, seeded when it is imported. An op's tuples
depend on how many rounds the ops before it had, which depends on time.
"""

import argparse
import csv
import fnmatch
import json
import random
import statistics
import sys
import time
from pathlib import Path

import torch

BENCH = Path(__file__).resolve().parent
OPS_TSV = BENCH / "facto-rates.tsv"
OPSFUZZ_PYTHON = BENCH.parent / "build" / "python"
SIDES = ("facto", "opsfuzz")
TARGET_RATIO = 50.0
FACTO_HINT = (
    "bring FACTO's public repository (github meta-pytorch/FACTO) and pass its folder, e.g. "
    "git clone https://github.com/meta-pytorch/FACTO /tmp/facto, then --facto /tmp/facto"
)


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--facto", type=Path, help="folder of FACTO's public repository (github meta-pytorch/FACTO)"
    )
    parser.add_argument("--ops", default="*", help="fnmatch pattern over the ops (default: all)")
    parser.add_argument(
        "--min-time", type=float, default=1.0,
        help="seconds of rounds per op and generator (default 1.0)",
    )
    parser.add_argument("--slices", type=int, default=5,
                        help="turns each side takes per op; the ratio is their median (default 5)")
    parser.add_argument("--only", choices=("facto", "opsfuzz", "both"), default="both")
    parser.add_argument("--tsv", type=Path, help="also write the table to this TSV file")
    parser.add_argument("--seed", type=int, default=0, help="seed of random and torch (default 0)")
    parser.add_argument("--cpp-json", type=Path,
                        help="generation_bench's JSON output: the C++ rates beside opsfuzz's")
    args = parser.parse_args()
    if args.facto is None and args.only != "opsfuzz":
        parser.error("--facto FOLDER is required (unless --only opsfuzz); " + FACTO_HINT)
    return args


def load_ops(pattern):
    with OPS_TSV.open(newline="") as f:
        rows = csv.DictReader(f, delimiter="\t")
        return [row["op"] for row in rows if fnmatch.fnmatchcase(row["op"], pattern)]


def import_facto(folder):
    if not (folder / "facto" / "inputgen").is_dir():
        sys.exit(f"FACTO not found in {folder}: {FACTO_HINT}")
    sys.path.insert(0, str(folder.resolve()))
    from facto.inputgen.argtuple.gen import ArgumentTupleGenerator
    from facto.specdb.db import SpecDictDB

    return ArgumentTupleGenerator, SpecDictDB


def import_opsfuzz():
    sys.path.append(str(OPSFUZZ_PYTHON))
    try:
        from opsfuzz.facto import ArgumentTupleGenerator, SpecDictDB
    except ImportError as e:
        sys.exit(
            f"cannot import opsfuzz.facto ({e}): build opsfuzz's Python module (into "
            f"{OPSFUZZ_PYTHON}) or put its folder on PYTHONPATH, or pass --only facto"
        )
    return ArgumentTupleGenerator, SpecDictDB


def rate(generator, seconds):
    """Tuples/s of the FACTO-style loop: full rounds until at least one and `seconds` have passed."""
    tuples = 0
    start = time.perf_counter()
    while True:
        for posargs, inkwargs, outargs in generator.gen():
            tuples += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return tuples / elapsed


def error_text(e):
    return f"{type(e).__name__}: {e}".splitlines()[0]


def measure(op, generators, min_time, slices):
    """{side: its median tuples/s, or the error's text; "ratio": the median of the slices' ratios}.

    The sides take turns, `slices` times, each for min_time / slices seconds: a change of the CPU's
    speed (these machines' CPUs change speed for minutes at a time) falls on both sides of most
    ratios."""
    result, built = {}, {}
    for side, (generator_class, spec_db) in generators.items():
        try:
            built[side] = generator_class(spec_db[op])
        except Exception as e:  # a failing spec is reported, not fatal
            result[side] = error_text(e)
    rates = {side: [] for side in built}
    for _ in range(slices):
        for side, generator in list(built.items()):
            try:
                rates[side].append(rate(generator, min_time / slices))
            except Exception as e:
                result[side] = error_text(e)
                del built[side], rates[side]
    result.update({side: statistics.median(r) for side, r in rates.items()})
    if len(rates) == 2:
        result["ratio"] = statistics.median(o / f for f, o in zip(rates["facto"], rates["opsfuzz"]))
    return result


def cpp_rates(path):
    """{op: tuples/s} of generation_bench's valid/<op> runs in its JSON output."""
    runs = json.loads(path.read_text())["benchmarks"]
    return {r["name"].removeprefix("valid/"): r["tuples/s"] for r in runs if r["name"].startswith("valid/")}


def ratio(result):
    return result.get("ratio")


def cell(value):
    return f"{value:.0f}" if isinstance(value, float) else "-"


def progress(result):
    shown = (f"{side} {cell(v) if isinstance(v, float) else v}" for side, v in result.items())
    return ", ".join(shown)


def table_rows(results, sides, cpp):
    both = len(sides) > 1
    header = ["op"] + [f"{side}_tuples_per_s" for side in sides] + (["ratio"] if both else [])
    header += ["cpp_tuples_per_s", "python_share"] if cpp else []
    rows = []
    for op, result in results.items():
        r = ratio(result)
        row = [op] + [cell(result[side]) for side in sides] + ([f"{r:.1f}" if r is not None else "-"] if both else [])
        if cpp:
            native, python = cpp.get(op), result.get("opsfuzz")
            share = python / native if native and isinstance(python, float) else None
            row += [cell(native), f"{share:.2f}" if share is not None else "-"]
        rows.append(row)
    return header, rows


def print_table(header, rows):
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print(row[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(row[1:], widths[1:])), sep="  ")


def print_summary(results, sides, seconds, cpp):
    ratios = {op: r for op, result in results.items() if (r := ratio(result)) is not None}
    print(f"\n{len(results)} ops, {seconds:.1f} s")
    if ratios:
        least = min(ratios, key=ratios.get)
        at_target = sum(r >= TARGET_RATIO for r in ratios.values())
        median = statistics.median(ratios.values())
        print(f"ratio (opsfuzz/facto) over {len(ratios)} ops: min {ratios[least]:.1f}x ({least}), "
              f"median {median:.1f}x, >= {TARGET_RATIO:.0f}x: {at_target}")
    shares = [r["opsfuzz"] / cpp[op] for op, r in results.items()
              if cpp.get(op) and isinstance(r.get("opsfuzz"), float)]
    if shares:
        print(f"opsfuzz's Python rate / its C++ rate over {len(shares)} ops: median {statistics.median(shares):.2f}, "
              f"min {min(shares):.2f}, max {max(shares):.2f}")
    for side in sides:
        failed = {op: r[side] for op, r in results.items() if isinstance(r[side], str)}
        print(f"{side} failed on {len(failed)} ops" + (":" if failed else ""))
        for op, error in failed.items():
            print(f"  {op}: {error}")


def write_tsv(path, header, rows):
    with path.open("w", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main():
    args = parse_args()
    sides = SIDES if args.only == "both" else (args.only,)
    importers = {"facto": lambda: import_facto(args.facto), "opsfuzz": import_opsfuzz}
    generators = {side: importers[side]() for side in sides}
    ops = load_ops(args.ops)
    if not ops:
        sys.exit(f"no op of {OPS_TSV} matches {args.ops!r}")
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    results = {}
    start = time.perf_counter()
    for i, op in enumerate(ops, 1):
        results[op] = measure(op, generators, args.min_time, args.slices)
        print(f"[{i}/{len(ops)}] {op}: {progress(results[op])}", file=sys.stderr, flush=True)
    cpp = cpp_rates(args.cpp_json) if args.cpp_json else {}
    header, rows = table_rows(results, sides, cpp)
    print_table(header, rows)
    print_summary(results, sides, time.perf_counter() - start, cpp)
    if args.tsv:
        write_tsv(args.tsv, header, rows)


if __name__ == "__main__":
    main()
