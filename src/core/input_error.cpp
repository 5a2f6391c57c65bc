#include "src/core/input_error.h"

#include <algorithm>
#include <utility>

namespace pperf {

namespace {
std::string compose(const std::string& where, const std::string& pointer, const std::string& msg) {
  return pointer.empty() ? where + ": " + msg : where + ": " + pointer + ": " + msg;
}

/// Levenshtein distance, one row at a time. Written here: none of the libraries pperf links
/// (Boost, fmt, nlohmann-json) has one, and a dozen lines beat a new dependency.
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

std::vector<std::string> closest_matches(const std::string& word, const std::vector<std::string>& candidates,
                                         size_t limit) {
  // Accept up to a third of the word mistyped; beyond that a suggestion is noise.
  const size_t plausible = std::max<size_t>(2, word.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& candidate : candidates)
    if (size_t d = edit_distance(word, candidate); d <= plausible) scored.emplace_back(d, candidate);
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  const auto best = closest_matches(word, candidates, 1);
  return best.empty() ? "" : best.front();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, size_t limit) {
  const auto matches = closest_matches(word, candidates, limit);
  if (matches.empty()) return "";
  std::string names;
  for (size_t i = 0; i < matches.size(); ++i)
    names += (i == 0 ? "" : i + 1 == matches.size() ? " or " : ", ") + ("'" + matches[i] + "'");
  return " (did you mean " + names + "?)";
}

}  // namespace pperf
