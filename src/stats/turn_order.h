#pragma once
// The order configurations take their turns in, round by round (src/measure/interleave.h):
// balanced, so that neither a trend within a round nor what ran just before favours anyone.
#include <cstddef>
#include <vector>

namespace pperf {

/// The order of round `round` over k configurations (indices 0..k-1). k = 2: A B, B A. k >= 3:
/// the rows of a Williams design (Williams 1949) in turn, k rows for even k and 2k (the rows and
/// their reverses) for odd k: over that cycle every configuration takes every position equally
/// often and follows every other configuration within a round equally often, and none takes two
/// turns back to back, not even across rounds (for k = 2 each does, equally often). Guarantees a
/// permutation of 0..k-1 for every round.
std::vector<size_t> turn_order(size_t k, size_t round);

/// Rounds in one cycle of turn_order: 1 for k <= 1, 2 for k = 2, k for even k, 2k for odd k >= 3.
size_t turn_order_cycle(size_t k);

}  // namespace pperf
