"""Exports PyTorch's own sample inputs for the SpecDB's ops as a YAML suite, for `ops-fuzz check`.

PyTorch 1.13's OpInfo database (torch.testing._internal.common_methods_invocations.op_db, in
Debian's python3-torch) holds, for each op, sample inputs its tests run on every dtype the op
declares on CPU. This script runs each OpInfo's samples on CPU, in each declared dtype, and
records the ATen calls they make (through a TorchDispatchMode: the calls as the CPU kernels
receive them, after autograd and the Python wrappers) whose overload is a SpecDB op. Each call
becomes one test of the suite, its tensors written exactly (docs/yaml-format.md), so that

    PYTHONPATH=build/python /usr/bin/python3 tools/opinfo_samples.py --out opinfo.yaml
    ./build/ops-fuzz check opinfo.yaml

classifies PyTorch's own valid inputs by the SpecDB's rules. Run it by hand, from the project's
root, with Debian's interpreter and the Python module built; it writes a few MB. Calls that raise
are left out (a sample meant to fail), and so are calls repeated with the same signature or once
an op has --per-op tests, and calls with what the format cannot hold (complex32 tensors or dtypes,
sparse or quantized tensors, complex Python numbers): those are counted. A Python number that the call wraps into a 0-dim tensor (torch.add(x, 2))
is written as a 0-dim tensor: its value is the same, though it promotes as a tensor would.
"""

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from opinfo_dtypes import op_db  # noqa: E402  (the database, with its import worked around)

import torch  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402


class Recorder(TorchDispatchMode):
    """Records every ATen call that reaches the dispatch mode, then runs it."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = f"{func.overloadpacket.__name__}.{func._overloadname}"
        self.calls.append((name, func, args, kwargs))
        return func(*args, **kwargs)


def number(x):
    """A float as YAML 1.1 reads it back exactly (a '.' in every mantissa, .inf, .nan)."""
    if math.isnan(x):
        return ".nan"
    if math.isinf(x):
        return ".inf" if x > 0 else "-.inf"
    text = repr(float(x))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def element(x, dtype):
    if dtype.is_complex:
        return f"[{number(x.real)}, {number(x.imag)}]"
    if dtype == torch.bool:
        return "true" if x else "false"
    if dtype.is_floating_point:
        return number(x)
    return str(int(x))


def nested(values, dtype):
    if isinstance(values, list):
        return "[" + ", ".join(nested(v, dtype) for v in values) + "]"
    return element(values, dtype)


def dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def node(value):
    """A YAML node of the suite format for one argument, or None when it has none."""
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_quantized or value.dtype == torch.complex32:
            return None
        t = value.detach().resolve_conj().resolve_neg().contiguous()
        values = nested(t.tolist(), t.dtype)
        if t.dim() == 0:
            return f"{{type: scalar_tensor, dtype: {dtype_name(t.dtype)}, value: {values}}}"
        shape = "[" + ", ".join(str(s) for s in t.shape) + "]"
        return f"{{type: const_tensor, shape: {shape}, dtype: {dtype_name(t.dtype)}, value: {values}}}"
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, torch.Tensor) for v in value):
            elems = [node(v) for v in value]
            return None if None in elems else "{type: tuple, elems: [" + ", ".join(elems) + "]}"
        items = [const_text(v) for v in value]
        return None if None in items else "{type: const, value: [" + ", ".join(items) + "]}"
    text = const_text(value)
    return None if text is None else f"{{type: const, value: {text}}}"


def const_text(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return number(v)
    if isinstance(v, complex):
        return None  # no complex constants in the format
    if isinstance(v, torch.dtype):
        return None if v == torch.complex32 else dtype_name(v)  # no complex32 in opsfuzz
    if isinstance(v, (torch.memory_format, torch.layout)):
        return str(v).removeprefix("torch.")
    if isinstance(v, torch.device):
        return v.type
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return None


def signature(args, kwargs):
    """What makes two calls the same test for this export: shapes, dtypes and other values."""
    def key(v):
        if isinstance(v, torch.Tensor):
            return ("T", tuple(v.shape), str(v.dtype))
        if isinstance(v, (list, tuple)):
            return tuple(key(x) for x in v)
        return repr(v)
    return (key(args), tuple(sorted((k, key(v)) for k, v in kwargs.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the YAML suite to write")
    parser.add_argument("--per-op", type=int, default=40, help="tests per SpecDB op at most (default 40)")
    args = parser.parse_args()
    try:
        import opsfuzz
    except ImportError as e:
        sys.exit(f"opinfo_samples.py: {e}: run it with Debian's /usr/bin/python3 and PYTHONPATH=build/python")
    specs = set(opsfuzz.specs())
    tests, seen, counts, unwritable = [], set(), {}, 0
    torch.manual_seed(0)
    for info in op_db():
        label = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
        for dtype in sorted(info.supported_dtypes("cpu"), key=str):
            try:
                samples = list(info.sample_inputs("cpu", dtype, requires_grad=False))
            except Exception:
                continue
            for k, sample in enumerate(samples):
                recorder = Recorder()
                try:
                    with recorder:
                        info.op(sample.input, *sample.args, **sample.kwargs)
                except Exception:
                    continue  # a sample the op refuses (or one the dispatch mode cannot run)
                for name, func, call_args, call_kwargs in recorder.calls:
                    if name not in specs or counts.get(name, 0) >= args.per_op:
                        continue
                    sig = (name, signature(call_args, call_kwargs))
                    if sig in seen:
                        continue
                    ins = [node(a) for a in call_args]
                    kws = {key: node(v) for key, v in call_kwargs.items()}
                    if None in ins or None in kws.values():
                        unwritable += 1
                        continue
                    seen.add(sig)
                    counts[name] = counts.get(name, 0) + 1
                    tests.append((name, label, dtype_name(dtype), k, ins, kws))

    with open(args.out, "w") as f:
        f.write(f"# PyTorch {torch.__version__}'s OpInfo sample inputs for the SpecDB's ops, as the CPU kernels\n"
                "# receive them: written by tools/opinfo_samples.py (which says how).\n"
                "tests:\n")
        for n, (name, label, dtype, k, ins, kws) in enumerate(tests):
            f.write(f"  # OpInfo '{label}', dtype {dtype}, sample {k}\n")
            f.write(f"  - id: {name.replace('.', '_')}__opinfo__{n:05d}\n    op: aten::{name}\n")
            f.write("    in:\n" if ins else "    in: []\n")
            for i in ins:
                f.write(f"      - {i}\n")
            if kws:
                f.write("    kwargs:\n")
                for key, v in kws.items():
                    f.write(f"      {key}: {v}\n")
    print(f"{args.out}: {len(tests)} tests of {len(counts)} SpecDB ops; {unwritable} calls left out "
          "(complex32, sparse or quantized tensors, complex numbers)")


if __name__ == "__main__":
    main()
