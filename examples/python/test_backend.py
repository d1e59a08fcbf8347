"""A backend's kernels against PyTorch's, on opsfuzz's samples: copy this file, put your backend
in `backend()` and the ops it implements in OPS.

    PYTHONPATH=build/python python3 -m pytest examples/python -rx

Each sample is one test, named op-validity-index (`add_Tensor-valid-0007`): a failure names the
sample, and `opsfuzz.generate(op, seed=SEED, index=7)` (or `ops-fuzz generate add.Tensor
--index 7 --format yaml`) gives it back. Valid samples must match PyTorch's result; invalid ones,
each breaking one rule of the op's contract (`sample.violated`), must be refused as PyTorch
refuses them.
"""

import pytest
import torch

import opsfuzz

OPS = ["add.Tensor", "mm.default", "sum.dim_IntList", "cat.default", "where.self"]
SAMPLES = 25  # per op and validity
SEED = 0


def aten(op):
    """torch.ops.aten's overload of a SpecDB op: "add.Tensor" -> torch.ops.aten.add.Tensor."""
    name, overload = op.split(".")
    return getattr(getattr(torch.ops.aten, name), overload)


def noncontiguous(value):
    """The same values in another layout: every other element of a tensor twice as wide."""
    if isinstance(value, torch.Tensor) and value.dim() > 0:
        wide = torch.empty(*value.shape[:-1], 2 * value.shape[-1], dtype=value.dtype)
        view = wide[..., ::2]
        view.copy_(value)
        return view
    if isinstance(value, list):
        return [noncontiguous(v) for v in value]
    return value


def backend(op, args, kwargs):
    """The backend under test. Here: PyTorch's CPU kernel on non-contiguous copies of the inputs."""
    return aten(op)(*noncontiguous(args), **{k: noncontiguous(v) for k, v in kwargs.items()})


def wrong_backend(op, args, kwargs):
    """A deliberately wrong backend, to show what a failure looks like: its sums are one too big."""
    return backend(op, args, kwargs) + 1


def samples(op, valid):
    validity = "valid" if valid else "invalid"
    for s in opsfuzz.generate(op, SAMPLES, seed=SEED, valid=valid):
        yield pytest.param(s, id=f"{op.replace('.', '_')}-{validity}-{s.index:04d}")


def all_samples(valid):
    return [param for op in OPS for param in samples(op, valid)]


@pytest.mark.parametrize("sample", all_samples(valid=True))
def test_matches_pytorch(sample):
    expected = aten(sample.op)(*sample.args, **sample.kwargs)
    actual = backend(sample.op, sample.args, sample.kwargs)
    torch.testing.assert_close(actual, expected, equal_nan=True)


@pytest.mark.parametrize("sample", all_samples(valid=False))
def test_refuses_what_pytorch_refuses(sample):
    try:
        expected = aten(sample.op)(*sample.args, **sample.kwargs)
    except RuntimeError:  # how PyTorch's kernels refuse an input
        with pytest.raises(RuntimeError):
            backend(sample.op, sample.args, sample.kwargs)
        return
    # Through torch.ops, Python's binding reads a bool Scalar as an int (alpha=False as 0): a
    # sample whose bool Scalar breaks a rule in C++ is valid here, and the results must agree.
    torch.testing.assert_close(backend(sample.op, sample.args, sample.kwargs), expected, equal_nan=True)


@pytest.mark.xfail(strict=True, reason="the deliberately wrong backend: every sum is one too big")
@pytest.mark.parametrize("sample", list(samples("sum.dim_IntList", valid=True))[:3])
def test_a_wrong_backend_fails(sample):
    expected = aten(sample.op)(*sample.args, **sample.kwargs)
    torch.testing.assert_close(wrong_backend(sample.op, sample.args, sample.kwargs), expected, equal_nan=True)
