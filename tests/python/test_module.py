"""The Python module (python/) against the command line, torch and FACTO's generator shape.

Run by CTest (tests/python/CMakeLists.txt: Python.*) with PYTHONPATH on the build's module,
OPSFUZZ_CLI naming ops-fuzz and OPSFUZZ_SOURCE_DIR the sources.
"""

import csv
import hashlib
import json
import math
import os
import subprocess
import sys
import threading

import pytest
import torch

import opsfuzz
from opsfuzz.facto import ArgumentTupleGenerator, SpecDictDB

CLI = os.environ["OPSFUZZ_CLI"]
SOURCE_DIR = os.environ["OPSFUZZ_SOURCE_DIR"]
FIRST = 20  # samples per spec compared with the command line


def sha1(t):
    """What `generate --format jsonl` writes as a tensor's "sha1": its values' bytes, row-major."""
    row_major = t.flatten().clone(memory_format=torch.contiguous_format)  # strides 1, even of one element
    return hashlib.sha1(row_major.view(torch.uint8).numpy().tobytes()).hexdigest()


def as_json(value):
    """A sample's Python value as `generate --format jsonl` writes it (a tensor without its statistics)."""
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype).removeprefix("torch."), "shape": list(value.shape),
                "strides": list(value.stride()), "sha1": sha1(value)}
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return str(value).removeprefix("torch.")
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def cli_json(value):
    """A JSONL value with what as_json leaves out (a tensor's min, max and head) left out."""
    if isinstance(value, dict):
        return {k: value[k] for k in ("dtype", "shape", "strides", "sha1")}
    if isinstance(value, list):
        return [cli_json(v) for v in value]
    return value


def cli_samples(config, valid):
    """`ops-fuzz generate` of every spec: {op: [sample records]}."""
    args = [CLI, "generate", "--format", "jsonl", "--max", str(FIRST)]
    args += [] if valid else ["--invalid"]
    args += ["--config", config] if config != "default" else []
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    by_op = {}
    for line in lines:
        record = json.loads(line)
        by_op.setdefault(record["op"], []).append(record)
    return by_op


@pytest.mark.parametrize("config,valid", [("default", True), ("default", False), ("half,strided,extremes", True),
                                          ("contract", False)])
def test_bit_identity_with_cli(config, valid):
    cli = cli_samples(config, valid)
    compared = 0
    for op in opsfuzz.specs():
        mine = list(opsfuzz.generate(op, FIRST, valid=valid, config=config))
        theirs = cli.get(op, [])
        assert len(mine) == len(theirs), op
        for sample, record in zip(mine, theirs):
            where = f"{op} #{record['index']} ({config}, {'valid' if valid else 'invalid'})"
            assert (sample.op, sample.index, sample.seed, sample.valid) == (
                record["op"], record["index"], record["seed"], record["valid"]), where
            assert sample.violated == record.get("violated"), where
            assert sample.deviations == record.get("deviations", []), where
            positional = iter(sample.args)
            for arg in record["args"]:
                value = sample.kwargs[arg["name"]] if arg.get("keyword") else next(positional)
                assert as_json(value) == cli_json(arg["value"]), f"{where}: argument {arg['name']}"
            assert next(positional, None) is None, where
            compared += 1
    print(f"{compared} samples of {len(opsfuzz.specs())} specs identical to the command line's")
    # every valid stream is endless; some specs have no rule an invalid sample can break
    assert compared == len(opsfuzz.specs()) * FIRST if valid else compared > len(opsfuzz.specs()) * FIRST // 2


def aten(op):
    name, overload = op.split(".")
    return getattr(getattr(torch.ops.aten, name), overload)


def test_tensors_usable_by_torch_ops():
    calls = 0
    for op in opsfuzz.specs():
        for sample in opsfuzz.generate(op, 3, seed=1):
            assert all(not t.requires_grad for t in sample.args if isinstance(t, torch.Tensor))
            aten(op)(*sample.args, **sample.kwargs)  # a valid sample: the kernel takes it
            calls += 1
    assert calls == 3 * len(opsfuzz.specs())


def test_classify_agrees_with_generation():
    for op in opsfuzz.specs():
        for sample in opsfuzz.generate(op, 5):
            verdict = opsfuzz.classify(op, *sample.args, **sample.kwargs)
            assert verdict.valid and not verdict.violated, f"{sample}: {verdict}"
        for sample in opsfuzz.generate(op, 5, valid=False):
            verdict = opsfuzz.classify(op, *sample.args, **sample.kwargs)
            assert not verdict.valid and sample.violated in verdict.violated, f"{sample}: {verdict}"


def facto_ops():
    """The ops of FACTO's SpecDB (those of libtorch 1.13) that the SpecDB has too."""
    with open(os.path.join(SOURCE_DIR, "bench", "facto-rates.tsv")) as f:
        ops = [row["op"] for row in csv.DictReader(f, delimiter="\t")]
    ours = [op for op in ops if op in SpecDictDB]
    print(f"{len(ours)} of FACTO's {len(ops)} ops; not in the SpecDB: {sorted(set(ops) - set(ours))}")
    return ours


def test_facto_adapter_runs_a_facto_loop_over_every_facto_op():
    ops = facto_ops()
    assert len(ops) >= 164
    for op in ops:
        op_fn = aten(op)
        tuples = 0
        for posargs, inkwargs, outargs in ArgumentTupleGenerator(SpecDictDB[op]).gen():
            assert isinstance(posargs, list) and isinstance(inkwargs, dict) and outargs == {}
            if tuples < 2:  # the loop's call, on a few
                op_fn(*posargs, **inkwargs)
                assert opsfuzz.classify(op, *posargs, **inkwargs).valid, op
            tuples += 1
        assert tuples > 0, op


def test_facto_rounds_continue_one_seeded_stream():
    first = [as_json(t) for t in ArgumentTupleGenerator("add.Tensor").gen()]
    gen = ArgumentTupleGenerator(SpecDictDB["add.Tensor"])
    again, second = [as_json(t) for t in gen.gen()], [as_json(t) for t in gen.gen()]
    assert first == again  # the same seed, the same round
    assert second != first  # the next round: new values
    assert [as_json(t) for t in ArgumentTupleGenerator("add.Tensor", seed=3).gen()] != first
    # one round is what the stream yields before its plan starts over (its first round's samples)
    assert len(first) == sum(1 for s in opsfuzz.generate("add.Tensor", len(first)))
    posargs, inkwargs, outargs = next(iter(gen.gen(out=True)))
    assert list(outargs) == ["out"] and isinstance(outargs["out"], torch.Tensor)


@pytest.mark.parametrize("valid", [True, False])
def test_facto_rounds_are_the_stream_cut_at_round_ends(valid):
    # An invalid round ends early where its last rules are not broken: a sample that begins the
    # next round waits for the next gen(), so no sample is lost or seen twice.
    for op in ("mm.default", "cat.default", "index_select.default", "max_pool2d_with_indices.default"):
        gen = ArgumentTupleGenerator(op)
        rounds = [[as_json(posargs + list(inkwargs.values())) for posargs, inkwargs, _ in gen.gen(valid=valid)]
                  for _ in range(3)]
        stream = [as_json(s.args + list(s.kwargs.values()))
                  for s in opsfuzz.generate(op, sum(map(len, rounds)), valid=valid)]
        assert sum(rounds, []) == stream, op
        assert all(rounds), op


def test_facto_adapter_refuses_factos_tensor_config():
    with pytest.raises(TypeError, match="config words"):
        ArgumentTupleGenerator("add.Tensor", object())


def test_generate_index_is_the_streams_sample():
    stream = list(opsfuzz.generate("mm.default", 8, seed=5))
    (seventh,) = opsfuzz.generate("mm.default", seed=5, index=7)
    assert seventh.index == 7 and as_json(seventh.args) == as_json(stream[7].args)
    assert seventh.id == "mm_default__valid__0007"


def test_streams_in_threads_are_the_streams_alone():
    alone = {op: [as_json(s.args) for s in opsfuzz.generate(op, 30)] for op in ("mm.default", "cat.default")}
    together = {}

    def work(op):
        together[op] = [as_json(s.args) for s in opsfuzz.generate(op, 30)]

    threads = [threading.Thread(target=work, args=(op,)) for op in alone]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone


def test_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="unknown op 'add.Tensr'.*did you mean.*add.Tensor"):
        opsfuzz.generate("add.Tensr")
    with pytest.raises(ValueError, match="unknown config word 'extreme'"):
        opsfuzz.generate("add.Tensor", config="extreme")
    with pytest.raises(TypeError, match="missing required argument 'other'"):
        opsfuzz.classify("add.Tensor", torch.ones(2))
    with pytest.raises(TypeError, match="self"):
        opsfuzz.classify("add.Tensor", "x", torch.ones(2))
    with pytest.raises(TypeError, match="'object'"):
        opsfuzz.classify("add.Tensor", object(), torch.ones(2))
    with pytest.raises(ValueError, match="unknown op"):
        opsfuzz.describe("nope.default")
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        opsfuzz.generate("add.Tensor", -1)


def test_classify_reads_python_values():
    x = torch.ones(2, 3)
    verdict = opsfuzz.classify("sum.dim_IntList", x, [1], keepdim=True, dtype=torch.float64)
    assert verdict.valid and verdict.outside_scope == [] and repr(verdict) == "<opsfuzz.Classification valid>"
    verdict = opsfuzz.classify("sum.dim_IntList", x, [2])
    assert not verdict.valid and verdict.violated == ["dim[i] in [-self.rank, self.rank)"], verdict
    assert repr(verdict) == "<opsfuzz.Classification invalid: dim[i] in [-self.rank, self.rank)>"


def test_describe_and_specs():
    assert len(opsfuzz.specs()) == len(set(opsfuzz.specs())) >= 263
    assert "add.Tensor" in opsfuzz.specs()
    text = opsfuzz.describe("add.Tensor")
    assert "alpha" in text and "broadcastable" in text


def fresh_interpreter(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)


@pytest.mark.parametrize("imports", ["import opsfuzz\nimport torch", "import torch\nimport opsfuzz"])
def test_loads_in_a_fresh_interpreter(imports):
    done = fresh_interpreter(imports + "\n(s,) = opsfuzz.generate('mm.default', 1)\nprint(torch.mm(*s.args).shape)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("torch.Size(")


def test_run_returns_the_result_records(tmp_path):
    records = opsfuzz.run(ops="abs.default", max=3, backends=["eager_cpu_fp64"], baseline="eager_cpu")
    assert len(records) == 3 and all(r["type"] == "item" for r in records)
    assert {b["backend"] for r in records for b in r["backends"]} == {"eager_cpu_fp64"}
    assert {r["baseline"]["backend"] for r in records} == {"eager_cpu"}
    kept = opsfuzz.run(ops="abs.default", max=2, out=str(tmp_path / "r.jsonl"))
    assert len(kept) == 2 and (tmp_path / "r.jsonl").exists()
    with pytest.raises(ValueError, match="bad usage"):
        opsfuzz.run(ops="abs.default", no_such_option=1)


def test_hunt_returns_its_findings(tmp_path):
    # TorchScript's binding refuses a bool alpha that eager add takes (sample 70 has one): a finding.
    findings = opsfuzz.hunt(str(tmp_path), ops="add.Tensor", max=80, configs="default", no_invalid=True,
                            backends="torchscript_cpu")
    assert any(f["op"] == "add.Tensor" and f["kind"] == "unsupported" for f in findings), findings
    assert (tmp_path / "findings.jsonl").exists()
