"""FACTO's generator shape on opsfuzz's SpecDB: a FACTO-based suite switches by its import.

    from opsfuzz.facto import ArgumentTupleGenerator, SpecDictDB  # was: facto.inputgen..., facto.specdb.db
    for posargs, inkwargs, outargs in ArgumentTupleGenerator(SpecDictDB["add.Tensor"]).gen():
        torch.ops.aten.add.Tensor(*posargs, **inkwargs, **outargs)

What differs from FACTO:
- the spec is opsfuzz's for that op (`opsfuzz.describe(op)` shows it); anything with an `.op`
  naming a SpecDB op works, FACTO's own Spec objects included, and so does the name itself;
- gen() yields one round of the plan as FACTO's does, but each call continues one seeded stream
  (the next call yields the next round, with new values), so a run is the same every time:
  `seed` picks another stream;
- `config` is opsfuzz's config words (`config="extremes,strided"`; `ops-fuzz generate --help`
  lists them), not FACTO's TensorConfig, which is refused with a TypeError rather than ignored;
- gen_errors() is not offered, and gen(verbose=True) prints nothing.
"""

from collections.abc import Mapping

from . import specs
from ._opsfuzz import Stream


class Spec:
    """A SpecDB op by name, the part of FACTO's Spec a generator reads."""

    def __init__(self, op):
        self.op = op

    def __repr__(self):
        return f"Spec({self.op!r})"


class _SpecDictDB(Mapping):
    """SpecDictDB["add.Tensor"]: every SpecDB op, as FACTO's dictionary of specs maps them."""

    def __init__(self):
        self._ops = specs()

    def __getitem__(self, op):
        if op not in self._ops:
            raise KeyError(op)
        return Spec(op)

    def __iter__(self):
        return iter(self._ops)

    def __len__(self):
        return len(self._ops)


SpecDictDB = _SpecDictDB()


class ArgumentTupleGenerator:
    def __init__(self, spec, config=None, *, seed=0):
        if config is not None and not isinstance(config, str):
            raise TypeError(
                "opsfuzz.facto: config is a string of opsfuzz config words ('extremes,strided'), "
                f"not {type(config).__name__}: see `ops-fuzz generate --help` for the words"
            )
        self.op = spec if isinstance(spec, str) else spec.op
        self.seed = seed
        self.config = config or "default"
        self._streams = {}
        Stream(self.op, seed, True, self.config, False)  # an unknown op or word fails here, naming it

    def gen(self, *, valid=True, out=False, verbose=False):
        """One round of (posargs, inkwargs, outargs) tuples: positional arguments as a list,
        keywords and out= tensors (out=True) as dicts by name."""
        key = (valid, out)
        if key not in self._streams:
            self._streams[key] = Stream(self.op, self.seed, valid, self.config, out)
        return iter(self._streams[key].next_round())
