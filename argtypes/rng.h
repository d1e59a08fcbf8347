// The one random source: explicit, seeded, passed down by reference. xoshiro256** seeded
// through splitmix64, so a (seed, stream) pair always yields the same sequence on any machine.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace opsfuzz {

constexpr uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// splitmix64's output for state x, the state left as it was: a hash of one word.
constexpr uint64_t mix64(uint64_t x) { return splitmix64(x); }

// A seed for stream `stream` of `seed` (a sample index, a round, a worker).
constexpr uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
  return splitmix64(x);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) {
    for (auto& s : s_) s = splitmix64(seed);
  }
  uint64_t next() {
    uint64_t r;
    step(s_, r);
    return r;
  }
  // Uniform in [0, n) by multiply-shift (no division; the bias is below 2^-40 for our n).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
  // Uniform integer in [lo, hi].
  int64_t uniform_int(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    return span == 0 ? static_cast<int64_t>(next()) : lo + static_cast<int64_t>(below(span));
  }
  size_t index(size_t n) { return static_cast<size_t>(below(n)); }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform_real(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  bool chance(double p) { return uniform01() < p; }
  // n 32-bit random numbers for bulk fills, from eight xoshiro256** lanes seeded by this
  // generator and stepped together in one vector: a fraction of the instructions of next().
  void fill32(uint32_t* out, size_t n);
  // n 32-bit random numbers from next(), the low half of each first.
  void halves(uint32_t* out, size_t n) {
    for (size_t i = 0; i < n; i += 2) {
      const uint64_t r = next();
      out[i] = static_cast<uint32_t>(r);
      if (i + 1 < n) out[i + 1] = static_cast<uint32_t>(r >> 32);
    }
  }

 private:
  template <class W> static W rotl(W x, int k) { return (x << k) | (x >> (64 - k)); }
  // One xoshiro256** step of state s: of a 64-bit word, or of each lane of a vector of them
  // (x * 5 and x * 9 as shifts and adds, which vector lanes have where they lack a multiply).
  // The result by reference: clang refuses to return a 512-bit vector from the baseline clone.
  template <class W> static void step(W (&s)[4], W& result) {
    W x = rotl((s[1] << 2) + s[1], 7), t = s[1] << 17;
    result = (x << 3) + x;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
  }
  uint64_t s_[4];
};

}  // namespace opsfuzz
