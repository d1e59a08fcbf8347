// Parameter-setting diversity as OPERA measures it: each argument's value falls into one
// equivalence class, and a set of samples covers the (argument, class) pairs and the
// (argument pair, class pair) combinations it reaches. These are the `single` and `pairs`
// columns of `ops-fuzz generate` and the figures compared with FACTO's in bench/facto-rates.tsv.
//
// The classes (OPERA item 5; where it leaves a choice, the choice is said):
//   None (an absent optional)   one class of its own, whatever the argument's type
//   bool, string, ScalarType,   each value its own class
//     memory format, layout, device
//   integer                     five: < -1, -1, 0, 1, > 1
//   float                       three: < 0, 0, > 0; -inf and +inf fall in the sign's class (they
//                               are the ends of those ranges); NaN, in none of them, is a fourth
//   Scalar                      its Python dtype (bool, int, float) × the class of its value as above,
//                               so 1 and 1.0 are two classes, as they are two dtypes
//   tensor                      dtype × rank class (0, 1, 2, 3, 4, 5, > 5) × the ordered tuple of
//                               its sizes' integer classes (a shape is an int list, below);
//                               element values do not count
//   int list (dims, shapes)     the ordered tuple of its entries' integer classes: the length and
//                               which entry is what both count; [] is a class of its own
//   float list, bool list       the same, of its entries' float classes or values
//   tensor list                 the ordered tuple of its entries' tensor classes (None entries: None)
#pragma once

#include "argtypes/meta_arg.h"

#include <cstdint>
#include <span>
#include <vector>

namespace opsfuzz {

struct Sample;

// The equivalence class of one argument's value, as a 64-bit hash of the class's parts (two
// classes sharing a hash would need a 64-bit collision). Arguments of different ArgTypes may
// share a hash: classes are only ever compared within one argument.
uint64_t diversity_class(const MetaArg& m);

// The keys of what a sample's metas cover: one per (argument, class), then one per (argument
// pair, class pair), as DiversityCounter counts them. `extra` are the classes of arguments beyond
// the metas, numbered after them (the diversity order's class of how a sample was generated).
std::vector<uint64_t> diversity_keys(std::span<const MetaArg> metas, std::span<const uint64_t> extra = {});
// Appends to `keys`, whose first `singles` are mixed single keys, one key per pair of them (i < j,
// in order): what covering two classes at once is.
void append_pair_keys(std::vector<uint64_t>& keys, size_t singles);

// A set of 64-bit keys, open addressing: counting covered classes must stay cheap next to
// generating the samples.
class KeySet {
 public:
  bool insert(uint64_t key);  // false when already there
  bool contains(uint64_t key) const;
  size_t size() const { return size_ + has_zero_; }
  void clear();

 private:
  std::vector<uint64_t> slots_;  // 0 marks an empty slot; key 0 is kept in has_zero_
  size_t size_ = 0;
  bool has_zero_ = false;
};

// Classes covered by the samples observed so far. Arguments are told apart by their position in
// the sample's metas (positional then keyword, as the spec lists them), so the samples must all
// be of one spec.
class DiversityCounter {
 public:
  // Both return how many classes and class pairs the sample covers that none before it did.
  size_t observe(const Sample& s);
  size_t observe(std::span<const MetaArg> metas);
  // Sum over the arguments of the classes each took.
  size_t single() const { return singles_.size(); }
  // Sum over the unordered pairs of arguments of the class pairs each pair took (0 for an op
  // of one argument).
  size_t pairs() const { return pairs_.size(); }

 private:
  KeySet singles_, pairs_;
};

}  // namespace opsfuzz
