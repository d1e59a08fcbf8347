// VariableSpace: the values one variable may take. Either a discrete set (finite, or everything
// except a finite set) or, for Int and Float variables, a union of disjoint closed intervals.
// Open ends are normalized when applied: integers round inward, reals step to the next
// representable double, so (0, 1) over Float is [4.9e-324, 0.99999999999999989].
#pragma once

#include "argtypes/value.h"

#include <boost/container/flat_set.hpp>
#include <boost/container/small_vector.hpp>

#include <optional>
#include <span>

namespace opsfuzz {

struct Interval {
  double lo, hi;  // closed; ±inf allowed (over Float, ±inf then belong to the space)
  friend bool operator==(const Interval&, const Interval&) = default;
};

class VariableSpace {
 public:
  using Values = boost::container::flat_set<Value, std::less<>, boost::container::small_vector<Value, 8>>;
  using Intervals = boost::container::small_vector<Interval, 4>;

  // Every value of the type: Bool {false, true}; Int (-inf, inf); Float [-inf, inf] and NaN;
  // ScalarDtype, TensorDtype, MemoryFormat, Layout (strided, sparse_coo) and Device (cpu, cuda)
  // all their values; String and Tuple anything.
  explicit VariableSpace(VarType type = VarType::Int);
  static VariableSpace of(VarType type, std::span<const Value> values);
  static VariableSpace range(VarType type, double lo, double hi);  // closed; Int or Float

  VarType type() const { return type_; }
  bool is_interval() const { return interval_; }
  bool is_cofinite() const { return cofinite_; }  // everything except values()
  const Values& values() const { return values_; }
  const Intervals& intervals() const { return intervals_; }
  bool admits_nan() const { return nan_; }

  bool empty() const { return interval_ ? intervals_.empty() && !nan_ : !cofinite_ && values_.empty(); }
  bool contains(const Value& v) const;
  bool contains_number(double v) const;  // of an Int or Float space; the same as contains(v)
  // Number of members when finite (intervals over Int count their integers); -1 when infinite.
  int64_t size() const;
  // Finite members in order, at most `limit` of them.
  std::vector<Value> enumerate(size_t limit) const;
  std::optional<double> min() const;  // numeric spaces
  std::optional<double> max() const;

  VariableSpace& eq(const Value& v);
  VariableSpace& ne(const Value& v);
  VariableSpace& in(std::span<const Value> vs);
  VariableSpace& not_in(std::span<const Value> vs);
  VariableSpace& le(double v);
  VariableSpace& lt(double v);
  VariableSpace& ge(double v);
  VariableSpace& gt(double v);
  VariableSpace& outside(double lo, double hi);  // value < lo or value > hi
  // Finite values in [lo, hi], the infinities and NaN of a Float space staying (what converts into
  // a floating dtype: only finite values past its range overflow); and its negation, finite values
  // outside [lo, hi]. Over Int, the same as ge(lo).le(hi) and outside(lo, hi).
  VariableSpace& finite_within(double lo, double hi);
  VariableSpace& finite_outside(double lo, double hi);
  VariableSpace& intersect(const VariableSpace& other);
  // Moves each finite interval end inward to a value a coarser number format holds, dropping the
  // intervals left empty: `held(v, up)` is that format's nearest value >= v (up) or <= v.
  VariableSpace& round_inward(double (*held)(double v, bool up));

  std::string to_string() const;
  friend bool operator==(const VariableSpace&, const VariableSpace&) = default;

 private:
  bool is_int() const { return type_ == VarType::Int; }
  void clip(double lo, double hi);  // intersect with [lo, hi]
  void cut(double v);               // remove one point from intervals
  void filter(auto&& keep);         // keep the members of a discrete space that satisfy keep

  VarType type_;
  bool interval_ = false;
  bool cofinite_ = false;
  bool nan_ = false;
  Values values_;
  Intervals intervals_;
};

}  // namespace opsfuzz
