#pragma once
// Bad user input (config, price table, results file, CLI flag). The CLI prints what() on one
// line and exits 2. Where one is caught on the way it is to say the same mistake better (a
// workload's preflight re-anchored at the config's JSON pointer, a param's complaint placed in
// its file), and it is thrown on; no partial state is acted upon.
#include <stdexcept>
#include <string>
#include <vector>

namespace pperf {

class InputError : public std::runtime_error {
 public:
  /// `where` is the file (or "--flag"); `pointer` a JSON pointer into it, empty when the whole
  /// file is at fault. what() == "WHERE: POINTER: MESSAGE".
  InputError(std::string where, std::string pointer, const std::string& message);
  const std::string& where() const { return where_; }
  const std::string& pointer() const { return pointer_; }

 private:
  std::string where_;
  std::string pointer_;
};

/// The candidate closest to `word` by edit distance, or "" when none is plausibly meant.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

/// Up to `limit` plausibly meant candidates, closest first (ties keep the candidates' order).
std::vector<std::string> closest_matches(const std::string& word, const std::vector<std::string>& candidates,
                                         size_t limit);

/// " (did you mean 'X'?)", " (did you mean 'X' or 'Y'?)" (up to `limit` names) or "" —
/// appended to unknown-name messages.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, size_t limit = 1);

}  // namespace pperf
