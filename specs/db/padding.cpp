#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

using S = c10::ScalarType;

// Pads are generated in [-kPadWindow, kPadWindow].
constexpr int64_t kPadWindow = 9;

// The padded dim of pad entry i: pairs pad the last dims, the last dim first.
int64_t padded_size(const Ctx& c, int64_t i) { return c.size("self", c.rank("self") - 1 - i / 2); }

// The entries of a pad list whose padded sizes stay positive, as constant_pad_nd narrows: by the
// first pad of a pair, then by the second. Between "valid" and "invalid" lie sizes of 0, which the
// kernel takes only when no pad is positive: they are left out of both.
GenSets constant_pads(const Ctx& c) {
  int64_t i = c.position();
  int64_t size = padded_size(c, i);
  int64_t lo = -size, broken = -size;  // narrowing may start at the end
  if (i % 2) {
    int64_t first = c.solved(static_cast<size_t>(i - 1));
    lo = std::max(1 - size - first, -size - std::min<int64_t>(first, 0));
    broken = -size - std::min<int64_t>(first, 0);  // narrows to a negative length
  }
  GenSets g(on_ints([lo](int64_t v) { return v >= lo; }));
  for (int64_t v = -kPadWindow; v <= kPadWindow; ++v) {
    if (v >= lo) g.valid.push_back(v);
    else if (v < broken) g.invalid.push_back(v);
  }
  return g;
}
const char* kConstantPads = "keeps the padded size of its dim positive";

// A pad list of constant padding: pairs for the last dims, at most one per dim.
IntList constant_lengths(const Ctx& c) {
  IntList ok;
  for (int64_t n = 0; n <= 2 * c.rank("self"); n += 2) ok.push_back(n);
  return ok;
}
const char* kConstantLengths = "{0, 2, ..., 2 * self.rank}";

// The fill value of constant padding, written only where a pad is positive.
std::optional<S> filled_dtype(const Ctx& c) {
  const auto& pad = c.ints("pad");
  if (std::none_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; })) return std::nullopt;
  return c.dtype("self");
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
Spec constant_pad_nd() {
  return Spec("constant_pad_nd.default")
      .in(Tensor("self"))
      .in(LengthList("pad").deps("self")
            .length(In(kConstantLengths, constant_lengths))
            .value(Gen(kConstantPads, constant_pads)))
      .in(Scalar("value").deps("self", "pad")
            .value(fits_dtype("self.dtype (when a pad is positive)", filled_dtype)));
}

// What one reflection or replication kernel of n padded dims takes: self is (C, dims...) or
// (N, C, dims...), of float32, float64, complex64 and complex128 (and float16, bfloat16 for
// reflection_pad3d: the CPU kernels have no other path); only N may be empty (and C for some kernels). Each pad keeps the
// padded size of its dim positive.
struct Kernel {
  int64_t n;                  // padded dims
  bool pads_below_size;       // each pad is below the size of its dim (else any pad)
  bool checks_length;         // the kernel checks len(padding)
  bool checks_each_size;      // ... that each padded size is positive, not only one of them
  bool empty_channels;        // dim 0 of an (n + 1)-d self may be empty too
  bool half = false;          // the kernel has float16 and bfloat16 paths too

  std::vector<S> dtypes() const {
    if (half) return with_complex({floating_dtypes().begin(), floating_dtypes().end()});
    return with_complex({S::Float, S::Double});
  }
  bool takes(S dtype) const {
    auto ok = dtypes();
    return std::find(ok.begin(), ok.end(), dtype) != ok.end();
  }
  // Whether dim `d` of a rank-`r` self may be empty.
  bool may_be_empty(int64_t d, int64_t r) const { return d == 0 && (empty_channels || r == n + 2); }
  // The largest pad the rules allow on a dim of `size`, if any.
  std::optional<int64_t> largest(int64_t size) const {
    return pads_below_size ? std::optional<int64_t>(size - 1) : std::nullopt;
  }
};
// reflection_padNd: each pad reflects inside its dim, so it is smaller than that dim (a negative
// pad crops). The 1d and 2d kernels do not check the length.
Kernel reflection_kernel(int64_t n) { return {n, true, n == 3, n == 1, n < 3, n == 3}; }
// replication_padNd: any pad, negative ones crop.
Kernel replication_kernel(int64_t n) { return {n, false, true, n == 1, false}; }

// padding[i] of a 1d/2d/3d padding op: the padded size of each dim stays positive, which the
// second entry of a pair decides. The first keeps room for the second's largest value: the rules'
// (a reflection pad is below the size of its dim), else the largest generated.
Cond padded_size_positive(std::string text, std::function<std::optional<Kernel>(const Ctx&)> kernel) {
  return Gen(std::move(text), [kernel](const Ctx& c) -> std::optional<GenSets> {
    auto k = kernel(c);
    if (!k) return std::nullopt;
    int64_t i = c.position(), size = padded_size(c, i);
    if (i % 2) {
      int64_t lo = 1 - size - c.solved(static_cast<size_t>(i - 1));
      return split(-kPadWindow, kPadWindow, [lo](int64_t v) { return v >= lo; });
    }
    const std::optional<int64_t> largest = k->largest(size);
    GenSets g(on_ints([largest, size](int64_t v) { return !largest || v >= 1 - size - *largest; }));
    for (int64_t v = -kPadWindow; v <= kPadWindow; ++v)
      if (v >= 1 - size - largest.value_or(kPadWindow)) g.valid.push_back(v);
    return g;
  });
}
const char* kPositive = "keeps the padded size of its dim >= 1";

// Reflection pads are smaller than the size of their dim (when `reflects`).
Cond below_size(std::string when, std::function<bool(const Ctx&)> reflects) {
  return Lt("the size of its dim" + when, [reflects](const Ctx& c) -> std::optional<int64_t> {
    if (!reflects(c)) return std::nullopt;
    return padded_size(c, c.position());
  });
}

DeviationRef unchecked_length(const std::string& op) {
  return deviation(deviation_id(op, "padding_length_unchecked"),
      "the kernel reads the 2n pads it needs without checking len(padding): a shorter list reads past its end "
      "(SIGSEGV or garbage pads), a longer one is taken",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 200",
      {kSegfault});
}
DeviationRef one_positive_size(const std::string& op, int max = 200) {
  return deviation(deviation_id(op, "one_padded_size_checked"),
      "the kernel checks that one padded size is positive (output_w >= 1 || output_h >= 1 ...), not each: "
      "a padded size of 0 beside a positive one returns an empty result",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max " + std::to_string(max));
}

// op(Tensor self, int[2n] padding) -> Tensor for the kernel `k`, whose pads follow `padding`.
Spec padding_op(std::string op, const Kernel& k, ArgSpec padding) {
  Cond length = Eq(2 * k.n);
  Cond positive = padded_size_positive(kPositive, [k](const Ctx&) { return k; });
  return Spec(op)
      .in(Tensor("self")
            .dtype(In(k.dtypes()))
            .rank(Be(k.n + 1, k.n + 2))
            .size(Ge(k.empty_channels ? "1 except for dim 0 (0)" : "1 except for dim 0 of a batched self (0)",
                     [k](const Ctx& c) { return k.may_be_empty(c.dim(), c.rank()) ? 0 : 1; })))
      .in(padding.deps("self")
            .length(k.checks_length ? length : Unchecked(unchecked_length(op), length))
            .value(k.checks_each_size ? positive : Unchecked(one_positive_size(op), positive)));
}

Spec reflection(std::string op, int64_t n) {
  return padding_op(op, reflection_kernel(n), LengthList("padding").value(below_size("", [](const Ctx&) { return true; })));
}
Spec replication(std::string op, int64_t n) { return padding_op(op, replication_kernel(n), LengthList("padding")); }

Spec reflection_pad1d() { return reflection("reflection_pad1d.default", 1); }
Spec reflection_pad2d() { return reflection("reflection_pad2d.default", 2); }
Spec reflection_pad3d() { return reflection("reflection_pad3d.default", 3); }
Spec replication_pad1d() { return replication("replication_pad1d.default", 1); }
Spec replication_pad2d() { return replication("replication_pad2d.default", 2); }
Spec replication_pad3d() { return replication("replication_pad3d.default", 3); }

// pad(Tensor self, int[] pad, str mode="constant", float? value=None) -> Tensor
// The constant mode pads as constant_pad_nd. The others call the reflection, replication or
// circular kernel of n = len(pad) / 2 dims (n in [1, 3]) on a self of n + 1 or n + 2 dims
// (unbatched or batched); value is None there, or 0.
std::string mode_of(const Ctx& c) { return std::get<std::string>(c.meta("mode").value); }
bool constant_mode(const Ctx& c) { return mode_of(c) == "constant"; }

// The reflection or replication kernel of n dims that mode `mode` calls.
std::optional<Kernel> mode_kernel(const std::string& mode, int64_t n) {
  if (mode == "reflect") return reflection_kernel(n);
  if (mode == "replicate") return replication_kernel(n);
  return std::nullopt;
}
// Whether the kernel of n dims of mode `mode` takes a self of dtype `t`, rank `r`, with or without
// an empty dim 0. Circular padding (_pad_circular) takes every dtype and empty dims.
bool takes(const std::string& mode, int64_t n, S t, int64_t r, bool empty_dim0) {
  if (r != n + 1 && r != n + 2) return false;
  if (mode == "circular") return true;
  auto k = mode_kernel(mode, n);
  return k && k->takes(t) && (!empty_dim0 || k->may_be_empty(0, r));
}
// The pad lengths 2n of the kernels of a non-constant mode that take self.
IntList kernel_lengths(const std::string& mode, S t, int64_t r, bool empty_dim0) {
  IntList out;
  for (int64_t n = 1; n <= 3; ++n)
    if (takes(mode, n, t, r, empty_dim0)) out.push_back(2 * n);
  return out;
}
// No constraint where no kernel takes self: an invalid self, which every pad list leaves invalid.
std::optional<IntList> unless_empty(IntList l) {
  if (l.empty()) return std::nullopt;
  return l;
}
bool reflect_or_replicate(const Ctx& c) { return mode_of(c) == "reflect" || mode_of(c) == "replicate"; }
// The reflection or replication kernel for the pad list being solved.
std::optional<Kernel> pad_kernel(const Ctx& c) { return mode_kernel(mode_of(c), c.length() / 2); }

// Circular pads, by pairs: each pair keeps the padded size >= 0, crops at most the dim, and each
// positive pad wraps at most once around what cropping leaves (`core`). The kernel checks pads
// against the size of the dim instead: a positive pad around nothing (core 0) is taken, and
// filled with uninitialized values (those pairs are `accepted`).
struct CircularPair {
  int64_t size, a, b;
  int64_t core() const { return size + std::min<int64_t>(a, 0) + std::min<int64_t>(b, 0); }
  // What the kernel refuses to go past: pads within [-size, size], a padded size >= 0.
  bool checked() const { return a >= -size && b >= -size && a <= size && b <= size && size + a + b >= 0; }
  bool valid() const { return checked() && core() >= 0 && a <= core() && b <= core(); }
  bool accepted() const { return checked() && core() == 0; }
};
// Candidates for circular pad i: `unchecked` tells the pairs the kernel takes though they break the
// rule (valid: the rule; invalid: those pairs) from the others.
Cond circular_pads(std::string text, bool unchecked) {
  return Gen(std::move(text), [unchecked](const Ctx& c) -> std::optional<GenSets> {
    if (mode_of(c) != "circular") return std::nullopt;
    int64_t i = c.position(), size = padded_size(c, i);
    if (i % 2 == 0) {  // any pad that b = 0 completes; the pair is broken by its second entry
      GenSets g(on_ints([size](int64_t v) { return v >= -size && v <= size; }));
      for (int64_t v = std::max(-size, -kPadWindow); v <= std::min(size, kPadWindow); ++v) g.valid.push_back(v);
      return g;
    }
    const int64_t first = c.solved(static_cast<size_t>(i - 1));
    auto keeps = [size, first, unchecked](int64_t v) {
      CircularPair p{size, first, v};
      return p.valid() || (!unchecked && p.accepted());
    };
    GenSets g(on_ints(keeps));
    for (int64_t v = -kPadWindow; v <= kPadWindow; ++v) {
      if (keeps(v)) g.valid.push_back(v);
      else if (CircularPair{size, first, v}.accepted() == unchecked) g.invalid.push_back(v);
    }
    return g;
  });
}

ArgSpec pad_self(const DeviationRef& unbatched) {
  return Tensor("self").deps("mode")
      .dtype(In("float32, float64 or complex when mode is reflect or replicate (or float16, bfloat16 for reflect in 3d)",
                [](const Ctx& c) -> std::optional<std::vector<S>> {
                  if (!reflect_or_replicate(c)) return std::nullopt;
                  return mode_kernel(mode_of(c), 3)->dtypes();
                }))
      .rank(In("n + 1 or n + 2 for a kernel of n dims in [1, 3] of the mode that takes self.dtype (mode is not constant)",
               [](const Ctx& c) -> std::optional<IntList> {
                 if (constant_mode(c)) return std::nullopt;
                 IntList ok;
                 for (int64_t r = 2; r <= 5; ++r)
                   if (!kernel_lengths(mode_of(c), c.own_dtype(), r, false).empty()) ok.push_back(r);
                 return unless_empty(ok);
               }))
      .rank(Avoid(unbatched, Ge("3 when mode is circular", [](const Ctx& c) -> std::optional<int64_t> {
        if (mode_of(c) != "circular") return std::nullopt;
        return 3;
      })))
      .size(Ge("1 except for dim 0 where a kernel of the mode takes it empty (mode is reflect or replicate)",
               [](const Ctx& c) -> std::optional<int64_t> {
                 if (!reflect_or_replicate(c)) return std::nullopt;
                 return c.dim() == 0 && !kernel_lengths(mode_of(c), c.own_dtype(), c.rank(), true).empty() ? 0 : 1;
               }));
}

ArgSpec pad_list(const DeviationRef& unbatched, const DeviationRef& one_positive, const DeviationRef& wraps_nothing) {
  auto n_is = [](bool one) {
    return [one](const Ctx& c) -> std::optional<Kernel> {
      auto k = pad_kernel(c);
      if (!k || (k->n == 1) != one) return std::nullopt;
      return k;
    };
  };
  return LengthList("pad").deps("self", "mode")
      .length(In(std::string(kConstantLengths) + " when mode is constant", [](const Ctx& c) -> std::optional<IntList> {
        if (!constant_mode(c)) return std::nullopt;
        return constant_lengths(c);
      }))
      .length(In("2n for a kernel of n dims of the mode that takes self (mode is not constant)",
                 [](const Ctx& c) -> std::optional<IntList> {
                   if (constant_mode(c)) return std::nullopt;
                   bool empty = c.rank("self") > 0 && c.size("self", 0) == 0;
                   return unless_empty(kernel_lengths(mode_of(c), c.dtype("self"), c.rank("self"), empty));
                 }))
      .length(Avoid(unbatched, Eq("2 * (self.rank - 2) when mode is circular", [](const Ctx& c) -> std::optional<int64_t> {
        if (mode_of(c) != "circular") return std::nullopt;
        return 2 * (c.rank("self") - 2);
      })))
      .value(Gen(std::string(kConstantPads) + " (mode is constant)", [](const Ctx& c) -> std::optional<GenSets> {
        if (!constant_mode(c)) return std::nullopt;
        return constant_pads(c);
      }))
      .value(below_size(" (mode is reflect)", [](const Ctx& c) { return mode_of(c) == "reflect"; }))
      .value(padded_size_positive(std::string(kPositive) + " (mode is reflect or replicate, len(pad) == 2)", n_is(true)))
      .value(Unchecked(one_positive, padded_size_positive(std::string(kPositive) + " (mode is reflect or replicate, len(pad) > 2)", n_is(false))))
      .value(circular_pads("keeps the padded size of its dim >= 0 and wraps at most once around what cropping leaves "
                           "(mode is circular, the kernel refuses)", false))
      .value(Unchecked(wraps_nothing, circular_pads("wraps at most once around what cropping leaves (mode is circular, "
                                                    "nothing is left)", true)));
}

Spec pad() {
  auto unbatched = deviation("pad.circular_unbatched",
      "circular padding refuses an unbatched self (\"Invalid padding size, expected 0 but got 2\"), which the "
      "documentation of torch.nn.functional.pad includes (the last n dims of an (n + 1)-d or (n + 2)-d input)",
      "ops-fuzz sweep pad.default --config contract --seed 0 --max 300");
  auto wraps_nothing = deviation("pad.circular_wraps_nothing",
      "circular padding checks each pad against the size of its dim, not against what negative pads leave of it: "
      "a positive pad around a dim cropped to nothing is taken and filled with uninitialized values",
      "ops-fuzz sweep pad.default --invalid --config contract --seed 0 --max 300");
  return Spec("pad.default")
      .in(pad_self(unbatched))
      .in(pad_list(unbatched, one_positive_size("pad.default", 500), wraps_nothing))
      .in(String("mode")
            .value(In(std::vector<std::string>{"constant", "reflect", "replicate", "circular"})))
      .in(FloatOpt("value").deps("mode", "self", "pad")
            .value(In("{0} when mode is not constant", [](const Ctx& c) -> std::optional<std::vector<double>> {
              if (constant_mode(c)) return std::nullopt;
              return std::vector<double>{0.0};
            }))
            .value(fits_dtype("self.dtype (when mode is constant and a pad is positive)", [](const Ctx& c) -> std::optional<S> {
              if (!constant_mode(c)) return std::nullopt;
              return filled_dtype(c);
            })));
}

}  // namespace

std::span<const SpecFn> padding_specs() {
  static constexpr SpecFn table[] = {constant_pad_nd, reflection_pad1d, reflection_pad2d, reflection_pad3d,
                                     replication_pad1d, replication_pad2d, replication_pad3d, pad};
  return table;
}

}  // namespace opsfuzz::db
