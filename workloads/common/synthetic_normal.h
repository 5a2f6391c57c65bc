#pragma once
// Synthetic N(0, 1) input data for workloads that train on random images/tensors (as seed 001
// does with torch.randn per sample). Torch-free: fills raw float buffers.
#include <cstdint>

namespace pperf {

/// xoshiro256++ (Blackman & Vigna): small state, fast, good statistical quality. Seeded through
/// splitmix64 so nearby seeds give unrelated streams.
class Xoshiro256pp {
 public:
  explicit Xoshiro256pp(uint64_t seed);
  uint64_t next();
  /// Uniform in [0, 1) with 24 random bits (exactly representable as float).
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

 private:
  uint64_t s_[4];
};

/// The seed of the RNG stream for item `index` (a batch) of a run seeded with `seed`.
uint64_t stream_seed(uint64_t seed, uint64_t index);

/// Fills out[0..n) with independent standard normal samples (Box-Muller on xoshiro256++
/// uniforms), deterministic in `seed`.
void fill_standard_normal(float* out, int64_t n, uint64_t seed);

}  // namespace pperf
