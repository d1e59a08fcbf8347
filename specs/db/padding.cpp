#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

// The padded dim of pad entry i: pairs pad the last dims, the last dim first.
int64_t padded_size(const Ctx& c, int64_t i) { return c.size("self", c.rank("self") - 1 - i / 2); }

// padding[i] of a 1d/2d/3d padding op: the padded size of each dim stays positive. The first
// entry of a pair keeps room for the second, whose largest value is `largest(size)`.
Cond padded_size_positive(std::function<int64_t(int64_t)> largest) {
  return Gen("keeps the padded size of its dim >= 1", [largest](const Ctx& c) {
    int64_t i = c.position(), size = padded_size(c, i);
    int64_t lo = 1 - size - largest(size);
    if (i % 2) lo = 1 - size - c.solved()[static_cast<size_t>(i - 1)];
    GenSets g;
    for (int64_t v = -9; v <= 9; ++v) {
      if (v >= lo) g.valid.push_back(v);
      else if (i % 2) g.invalid.push_back(v);
    }
    return g;
  });
}

// op(Tensor self, int[2n] padding) -> Tensor for n padded dims, on float32 and float64 (and
// float16, bfloat16 for reflection_pad3d: the CPU kernels have no other path): self is (C, dims...) or (N, C, dims...); only N may be empty
// (and C for some kernels). The padded sizes stay positive.
struct Padding {
  int64_t n;               // padded dims
  int64_t largest_pad;     // the largest pad the rules allow, -1: the size of its dim - 1
  DeviationRef length;     // the kernel does not check len(padding)
  DeviationRef positive;   // the kernel checks only that one padded size is positive
  bool empty_channels;     // dim 0 of an (n + 1)-d self may be empty too
  bool half = false;       // the kernel has float16 and bfloat16 paths too
};
Spec padding_op(std::string op, const Padding& p, ArgSpec padding) {
  auto largest = [l = p.largest_pad](int64_t size) { return l < 0 ? size - 1 : l; };
  Cond length = Eq(2 * p.n);
  Cond positive = padded_size_positive(largest);
  return Spec(std::move(op))
      .in(Tensor("self")
            .dtype(In(p.half ? std::vector(floating_dtypes().begin(), floating_dtypes().end())
                             : std::vector{c10::ScalarType::Float, c10::ScalarType::Double}))
            .rank(Be(p.n + 1, p.n + 2))
            .size(Ge(p.empty_channels ? "1 except for dim 0 (0)" : "1 except for dim 0 of a batched self (0)",
                     [p](const Ctx& c) { return c.dim() == 0 && (p.empty_channels || c.rank() == p.n + 2) ? 0 : 1; })))
      .in(padding.deps("self")
            .length(p.length ? Unchecked(p.length, length) : length)
            .value(p.positive ? Unchecked(p.positive, positive) : positive));
}

DeviationRef unchecked_length(const std::string& op) {
  return deviation(op.substr(0, op.find('.')) + ".padding_length_unchecked",
      "the kernel reads the 2n pads it needs without checking len(padding): a shorter list reads past its end "
      "(SIGSEGV or garbage pads), a longer one is taken",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 200");
}
DeviationRef one_positive_size(const std::string& op) {
  return deviation(op.substr(0, op.find('.')) + ".one_padded_size_checked",
      "the kernel checks that one padded size is positive (output_w >= 1 || output_h >= 1 ...), not each: "
      "a padded size of 0 beside a positive one returns an empty result",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 200");
}

// reflection_padNd(Tensor self, int[2n] padding): each pad reflects inside its dim, so it is
// smaller than that dim (a negative pad crops). The 1d and 2d kernels do not check the length.
Spec reflection(std::string op, int64_t n) {
  Padding p{n, -1, n < 3 ? unchecked_length(op) : nullptr, n > 1 ? one_positive_size(op) : nullptr, n < 3, n == 3};
  return padding_op(op, p, LengthList("padding")
      .value(Lt("the size of its dim", [](const Ctx& c) { return padded_size(c, c.position()); })));
}
// replication_padNd(Tensor self, int[2n] padding): any pad, negative ones crop.
Spec replication(std::string op, int64_t n) {
  Padding p{n, 9, nullptr, n > 1 ? one_positive_size(op) : nullptr, false};  // 9: the largest Length generated
  return padding_op(op, p, LengthList("padding"));
}

Spec reflection_pad1d() { return reflection("reflection_pad1d.default", 1); }
Spec reflection_pad2d() { return reflection("reflection_pad2d.default", 2); }
Spec reflection_pad3d() { return reflection("reflection_pad3d.default", 3); }
Spec replication_pad1d() { return replication("replication_pad1d.default", 1); }
Spec replication_pad2d() { return replication("replication_pad2d.default", 2); }
Spec replication_pad3d() { return replication("replication_pad3d.default", 3); }

}  // namespace

std::span<const SpecFn> padding_specs() {
  static constexpr SpecFn table[] = {reflection_pad1d, reflection_pad2d, reflection_pad3d,
                                     replication_pad1d, replication_pad2d, replication_pad3d};
  return table;
}

}  // namespace opsfuzz::db
