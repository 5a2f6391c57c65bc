#include "bench/core/input_error.h"

#include <algorithm>

namespace pperf {

namespace {
std::string compose(const std::string& where, const std::string& pointer, const std::string& msg) {
  return pointer.empty() ? where + ": " + msg : where + ": " + pointer + ": " + msg;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

InputError::InputError(std::string where, std::string pointer, const std::string& message)
    : std::runtime_error(compose(where, pointer, message)),
      where_(std::move(where)),
      pointer_(std::move(pointer)) {}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& candidate : candidates) {
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) best_distance = d, best = candidate;
  }
  // Accept up to a third of the word mistyped; beyond that a suggestion is noise.
  return best_distance <= std::max<size_t>(2, word.size() / 3) ? best : "";
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string m = closest_match(word, candidates);
  return m.empty() ? "" : " (did you mean '" + m + "'?)";
}

}  // namespace pperf
