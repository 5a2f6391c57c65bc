#include "workloads/common/synthetic_normal.h"

#include <cmath>

namespace pperf {

namespace {
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Xoshiro256pp::Xoshiro256pp(uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

uint64_t Xoshiro256pp::next() {
  const uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t stream_seed(uint64_t seed, uint64_t index) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull ^ (index + 0x632BE59BD9B4E019ull);
  splitmix64(state);
  return splitmix64(state);
}

void fill_standard_normal(float* out, int64_t n, uint64_t seed) {
  constexpr float kTwoPi = 6.28318530717958647692f;
  Xoshiro256pp rng(seed);
  int64_t i = 0;
  for (; i + 1 < n; i += 2) {
    // Box-Muller: u1 in (0, 1] so the log is finite; one pair of uniforms gives two normals.
    const float u1 = 1.0f - rng.uniform();
    const float u2 = rng.uniform();
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float angle = kTwoPi * u2;
    out[i] = radius * std::cos(angle);
    out[i + 1] = radius * std::sin(angle);
  }
  if (i < n) {
    const float u1 = 1.0f - rng.uniform();
    out[i] = std::sqrt(-2.0f * std::log(u1)) * std::cos(kTwoPi * rng.uniform());
  }
}

}  // namespace pperf
