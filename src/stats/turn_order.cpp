#include "src/stats/turn_order.h"

#include <algorithm>

namespace pperf {

size_t turn_order_cycle(size_t k) { return k <= 1 ? 1 : k == 2 ? 2 : k % 2 == 0 ? k : 2 * k; }

std::vector<size_t> turn_order(size_t k, size_t round) {
  std::vector<size_t> order(k);
  if (k == 0) return order;
  // Williams' first row 0, 1, k-1, 2, k-2, ...; row i adds i (mod k). Odd k adds the rows'
  // reverses, taken from row k-2 down (cyclically), so no round starts with the configuration
  // that ended the one before.
  const size_t at = round % turn_order_cycle(k);
  const size_t row = at < k ? at : (2 * k - 2 - (at - k)) % k;
  for (size_t j = 0; j < k; ++j) {
    const size_t first = j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : k - j / 2;
    order[j] = (first + row) % k;
  }
  if (at >= k) std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace pperf
