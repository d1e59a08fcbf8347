"""opsfuzz from Python: the SpecDB's samples as torch tensors and Python values.

    import opsfuzz
    for s in opsfuzz.generate("add.Tensor", 20, seed=7):
        torch.ops.aten.add.Tensor(*s.args, **s.kwargs)

The samples are those `ops-fuzz generate` makes for the same (op, seed, config, index), bit for
bit: the same C++ engine, in this process, on the libtorch Debian's python3-torch loads.
"""

import json
import os
import tempfile

import torch  # first: the module's tensors are torch's, and its types must be registered

from ._opsfuzz import Classification, Sample, Samples, Stream, classify, describe, run_cli, specs

__all__ = ["Classification", "Sample", "classify", "describe", "generate", "hunt", "run", "specs"]


def generate(op, n=None, *, seed=0, valid=True, config="default", index=None):
    """The samples of `op`'s stream (all of them when n is None: valid streams never end).

    op: a SpecDB op ("add.Tensor"; opsfuzz.specs() lists them). seed: the stream's seed.
    valid: False for invalid samples, each breaking one rule (`.violated` names it).
    config: comma-separated config words ("extremes", "half,strided", "contract"; `ops-fuzz
    generate --help` lists them), or "default". index: only the sample with this index.

    Each sample has .args and .kwargs (torch.Tensor and Python values, bound by the schema's
    names: op(*s.args, **s.kwargs)), .valid, .violated, .deviations, .seed, .index and .id.
    The GIL is released while a sample is solved.
    """
    for name, value in (("n", n), ("index", index), ("seed", seed)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"generate: {name} must be a non-negative integer, not {value!r}")
    if index is not None and n not in (None, 1):
        raise ValueError("generate: index selects one sample; give n or index, not both")
    stream = Stream(op, seed, valid, config, False)
    return Samples(stream, 1 if index is not None else n, index or 0)


# The options whose lists ops-fuzz separates by semicolons (the others by commas).
_SEMICOLON_LISTS = {"backends", "test_ids", "skips"}


def _arguments(command, positional, options):
    """ops-fuzz's arguments: keyword options as --long-names (True: a flag; a list: joined)."""
    args = [command, *map(str, positional)]
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, (";" if name in _SEMICOLON_LISTS else ",").join(map(str, value))]
        else:
            args += [flag, str(value)]
    return args


def _records(path):
    """A JSONL file's records, but the run's description (a record with "meta")."""
    with open(path) as f:
        records = (json.loads(line) for line in f if line.strip())
        return [r for r in records if "meta" not in r]


def _run_command(args):
    code = run_cli(args)
    if code == 2:
        raise ValueError(f"ops-fuzz {args[0]}: bad usage (the message above says why): {' '.join(args)}")
    return code


def hunt(out, *suites, **options):
    """`ops-fuzz hunt --out OUT [SUITE...]` with its options as keywords (ops="add.*",
    max=6, budget="2m", no_invalid=True, jobs=2, ...). Progress goes to stderr. Returns the
    findings (findings.jsonl in OUT) as dicts: one per root cause, with its reproducers."""
    _run_command(_arguments("hunt", suites, {"out": out, **options}))
    return _records(os.path.join(out, "findings.jsonl"))


def run(suite=None, **options):
    """`ops-fuzz run [SUITE]` with its options as keywords (ops="add.*", max=5,
    backends="eager_cpu_fp64", baseline="eager_cpu", ...). Returns the result records (opdiff's
    JSONL, one per item, its backends' results in it) as dicts; they are also kept in `out` (with
    the run's description first) when it is given."""
    positional = [suite] if suite is not None else []
    if options.get("out"):
        _run_command(_arguments("run", positional, options))
        return _records(options["out"])
    with tempfile.TemporaryDirectory(prefix="opsfuzz-run-") as folder:
        out = os.path.join(folder, "results.jsonl")
        _run_command(_arguments("run", positional, {**options, "out": out}))
        return _records(out)
