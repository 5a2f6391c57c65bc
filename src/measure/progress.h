#pragma once
// A self-updating progress line on a terminal: steps, the CI half-width against its target,
// and an ETA. Written to stderr (carriage return + clear line), at most 5 times a second.
#include <chrono>
#include <string>

#include "src/measure/runner.h"
#include "src/measure/turns.h"

namespace pperf {

/// `line` cut to fewer than `width` columns (0: as is): a line the terminal wraps cannot be
/// redrawn in place. Cut at a word boundary (the last space keeping at least half the line), no
/// separator left at its end, never inside a UTF-8 character.
std::string fit_progress_line(std::string line, size_t width);

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

/// The parent's one progress line while configurations take turns: the round, each side's timed
/// steps, each candidate's live improvement interval against the baseline, and the time to the
/// decision (when the decision can say) and to the budget's end. Drawn on stderr, cut to the
/// terminal's width; the caller draws only when stderr is a terminal.
class TurnsProgressLine {
 public:
  ~TurnsProgressLine();  // clears the line
  /// "setting up <configurations>: measuring processes start, warm up"
  void setting_up(const std::string& workload, const std::vector<std::string>& configurations);
  void operator()(const TurnsSnapshot& s);
  /// Any other state as the line (e.g. what preflight is doing).
  void draw(const std::string& text);
  void clear();

  /// The line for `s`, e.g. "resnet50_augment round 7: 70 steps each, ETA ~8 s to decide
  /// (budget <= 41 s) | heterogeneous -32.2..-6.8 % undecided".
  static std::string line(const TurnsSnapshot& s);

 private:
  bool drawn_ = false;
};

}  // namespace pperf
