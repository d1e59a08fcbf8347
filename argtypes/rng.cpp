#include "argtypes/rng.h"

namespace opsfuzz {

// Built for x86-64-v4 beside the baseline, chosen when the program loads: AVX-512 rotates a
// lane in one instruction where SSE2 takes three. Integer steps, so the same numbers either way.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void Rng::fill32(uint32_t* out, size_t n) {
  using Lanes = uint64_t __attribute__((vector_size(16)));
  uint64_t seeds[2] = {next(), next()};
  Lanes s[4];
  for (auto& lanes : s) lanes = Lanes{splitmix64(seeds[0]), splitmix64(seeds[1])};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Lanes r = step(s);
    std::memcpy(out + i, &r, sizeof r);
  }
  if (i < n) {
    Lanes r = step(s);
    std::memcpy(out + i, &r, (n - i) * sizeof(uint32_t));
  }
}

}  // namespace opsfuzz
