#pragma once
// A self-updating progress line on a terminal: steps, the CI half-width against its target,
// and an ETA. Written to stderr (carriage return + clear line), at most 5 times a second.
#include <chrono>
#include <string>

#include "bench/measure/runner.h"

namespace pperf {

class TerminalProgress {
 public:
  TerminalProgress(std::string label, const MeasureSettings& settings);
  ~TerminalProgress();  // clears the line
  void operator()(const Progress& p);

  /// The line for `p` (without control characters), e.g. "heterogeneous: step 37/200,
  /// CI ±4.1 % of median (target 2.0 %), ETA 12 s".
  std::string line(const Progress& p) const;

 private:
  std::string label_;
  MeasureSettings settings_;
  std::chrono::steady_clock::time_point last_{};
  bool drawn_ = false;
};

}  // namespace pperf
