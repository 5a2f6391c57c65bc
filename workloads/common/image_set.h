#pragma once
// What the image pipelines share: a set of uint8 images held in memory, shared by every pipeline
// of a process, and its seeded sample order.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "src/core/workload_registry.h"

namespace pperf {

/// `size()` images of side x side x channels bytes each (HWC), with their labels.
struct ImageSet {
  int64_t side = 0;
  int64_t channels = 1;
  std::vector<uint8_t> images;
  std::vector<int64_t> labels;
  DataInfo info;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t image_bytes() const { return side * side * channels; }
  const uint8_t* image(int64_t sample) const { return images.data() + sample * image_bytes(); }
};

/// A pixel value a chain computed in float (within [0, 255] up to rounding), rounded to the
/// nearest byte (ties to even) and clamped: what an image pipeline hands over before its last
/// conversion.
inline uint8_t round_to_byte(float v) {
  const float r = std::nearbyint(v);
  return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
}

/// The order samples are drawn in: [0, n) shuffled by `seed` (the same on every host).
inline std::vector<int64_t> shuffled_order(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

}  // namespace pperf
