"""Exports the CPU dtypes PyTorch's own operator database declares for the SpecDB's ops.

PyTorch 1.13's OpInfo database (torch.testing._internal.common_methods_invocations.op_db, in
Debian's python3-torch) states for each op the dtypes its CPU kernels support
(OpInfo.supported_dtypes('cpu')). This script writes them, for every SpecDB op an OpInfo
covers, to specs/db/opinfo_dtypes.tsv; the test SpecDB.GeneratesTheDtypesPyTorchDeclares
compares the dtypes each spec generates with that table. Run it by hand, not at build time,
from the project's root with Debian's interpreter and the Python module built:

    PYTHONPATH=build/python /usr/bin/python3 tools/opinfo_dtypes.py

An OpInfo covers a SpecDB op "name.overload" when (the first rule that matches, named in the
table's `match` column):
  aten      its aten_name is `name` (add.Tensor: the OpInfo "add");
  function  its name is "nn.functional.<name>" (elu.default: "nn.functional.elu");
  view      `name` is "<view>_copy" and an OpInfo covers <view> by the rules above
            (permute_copy.default: "permute"): the copy takes the dtypes of the view.
Every OpInfo that matches is a row (max.dim has three: "max" with each variant_test_name), as
OpInfos of one op may cover different overloads; the test reads the union of an op's rows.
OpInfos that declare no CPU dtype (variants for CUDA only) are left out.
"""

import argparse
import sys
import types
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "specs" / "db" / "opinfo_dtypes.tsv"


def op_db():
    # torch.testing._internal imports expecttest (a test-only package Debian does not ship) for
    # its TestCase base class and ACCEPT flag only; the database itself does not use it.
    if "expecttest" not in sys.modules:
        try:
            import expecttest  # noqa: F401
        except ImportError:
            stand_in = types.ModuleType("expecttest")
            stand_in.TestCase, stand_in.ACCEPT = unittest.TestCase, False
            sys.modules["expecttest"] = stand_in
    from torch.testing._internal.common_methods_invocations import op_db as db

    return db


def dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def covering(base, by_aten, by_name):
    """The OpInfos that cover an op named `base`, and the rule that matched."""
    if base in by_aten:
        return by_aten[base], "aten"
    if "nn.functional." + base in by_name:
        return by_name["nn.functional." + base], "function"
    if base.endswith("_copy"):
        infos, rule = covering(base.removesuffix("_copy"), by_aten, by_name)
        if infos:
            return infos, "view"
    return [], None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=TABLE, help=f"the table to write (default {TABLE.relative_to(ROOT)})")
    args = parser.parse_args()
    try:
        import torch
        import opsfuzz
    except ImportError as e:
        sys.exit(f"opinfo_dtypes.py: {e}: run it with Debian's /usr/bin/python3 and PYTHONPATH=build/python "
                 "(the Python module, built with -DOPSFUZZ_WITH_PYTHON=ON)")

    by_aten, by_name = {}, {}
    for info in op_db():
        by_aten.setdefault(info.aten_name, []).append(info)
        by_name.setdefault(info.name, []).append(info)

    rows, uncovered = [], []
    for op in sorted(opsfuzz.specs()):
        infos, rule = covering(op.split(".")[0], by_aten, by_name)
        written = len(rows)
        for info in infos:
            name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
            dtypes = sorted(dtype_name(d) for d in info.supported_dtypes("cpu"))
            if dtypes:
                rows.append((op, name, rule, ",".join(dtypes)))
        if len(rows) == written:
            uncovered.append(op)

    with open(args.out, "w") as f:
        f.write(f"# The CPU dtypes PyTorch {torch.__version__}'s OpInfo database declares for the SpecDB's ops:\n"
                "# torch.testing._internal.common_methods_invocations.op_db, OpInfo.supported_dtypes('cpu'),\n"
                "# from Debian's python3-torch. Written by tools/opinfo_dtypes.py (which says what `match` means).\n")
        f.write("op\topinfo\tmatch\tcpu_dtypes\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    ops = len({r[0] for r in rows})
    print(f"{args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}: {len(rows)} OpInfos covering {ops} of {ops + len(uncovered)} SpecDB ops; "
          f"no OpInfo for {len(uncovered)}: {' '.join(uncovered)}")


if __name__ == "__main__":
    main()
