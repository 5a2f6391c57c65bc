#pragma once
// Bad user input (config, price table, results file, CLI flag). The CLI prints what() on one
// line and exits 2; nothing else in pperf catches it, so no partial state is acted upon.
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

/// " (did you mean 'X'?)" or "" — appended to unknown-name messages.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pperf
