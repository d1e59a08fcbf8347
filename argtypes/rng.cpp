#include "argtypes/rng.h"

namespace opsfuzz {

// Eight xoshiro256** lanes in one 512-bit vector: one AVX-512 step makes sixteen numbers, where
// two lanes in SSE2 made four. Built for x86-64-v4 beside the baseline, chosen when the program
// loads (the baseline steps the same vector in four SSE2 parts). Integer steps: the same numbers
// on every processor.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)  // clang 14 leaves callers in other files unresolved
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void Rng::fill32(uint32_t* out, size_t n) {
  constexpr size_t kLanes = 8;
  using Lanes = uint64_t __attribute__((vector_size(8 * kLanes)));
  uint64_t seeds[kLanes];
  for (auto& seed : seeds) seed = next();
  Lanes s[4];
  for (auto& lanes : s)
    for (size_t l = 0; l < kLanes; ++l) lanes[l] = splitmix64(seeds[l]);
  size_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    Lanes r;
    step(s, r);
    std::memcpy(out + i, &r, sizeof r);
  }
  if (i < n) {
    Lanes r;
    step(s, r);
    std::memcpy(out + i, &r, (n - i) * sizeof(uint32_t));
  }
}

}  // namespace opsfuzz
