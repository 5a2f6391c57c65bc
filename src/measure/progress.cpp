#include "src/measure/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "src/stats/stats.h"

namespace pperf {

TerminalProgress::TerminalProgress(std::string label, const MeasureSettings& settings)
    : label_(std::move(label)), settings_(settings) {}

TerminalProgress::~TerminalProgress() {
  if (drawn_) {
    const std::string clear = "\r\x1b[K";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, clear.data(), clear.size());
  }
}

std::string TerminalProgress::line(const Progress& p) const {
  if (p.warmup) return fmt::format("{}: warming up, step {}/{}", label_, p.steps, settings_.warmup_steps);
  const std::vector<double>& samples = *p.step_ms;
  const auto n = static_cast<int64_t>(samples.size());
  const double measured_s = std::accumulate(samples.begin(), samples.end(), 0.0) / 1000;
  const double mean_s = n > 0 ? measured_s / n : 0;
  const Summary s = summarize(samples);
  const double rel = s.rel_ci_halfwidth();
  // Steps still to go: up to max_steps or max_seconds, or until the CI is predicted to reach
  // its target (half-width shrinks as 1/sqrt(n)), but never fewer than min_steps.
  double steps_left = static_cast<double>(settings_.max_steps - n);
  steps_left = std::min(steps_left, mean_s > 0 ? (settings_.max_seconds - measured_s) / mean_s : steps_left);
  if (rel > 0 && n >= 6) {
    const double needed = n * (rel / settings_.target_rel_ci) * (rel / settings_.target_rel_ci);
    steps_left = std::min(steps_left, std::max(needed - n, static_cast<double>(settings_.min_steps - n)));
  }
  const double eta_s = std::max(0.0, steps_left) * mean_s;
  const std::string ci = n >= 6 ? fmt::format("CI ±{:.1f} % of median (target {:.1f} %)", rel * 100, settings_.target_rel_ci * 100)
                                : "CI after 6 steps";
  return fmt::format("{}: step {}/{}, {}, ETA {:.0f} s", label_, n, settings_.max_steps, ci, std::ceil(eta_s));
}

namespace {
/// Columns of the terminal stderr goes to ($COLUMNS first); 0 when unknown.
size_t stderr_columns() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (*end == 0 && n > 0) return static_cast<size_t>(n);
  }
  winsize size{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

}  // namespace

std::string fit_progress_line(std::string line, size_t width) {
  if (width == 0 || line.size() < width) return line;
  size_t cut = width - 1;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  // At a word boundary: the last space that keeps at least half the line, and no separator left
  // dangling at the end ("... undecided |", "steps each,").
  const size_t space = line.rfind(' ', cut);
  if (space != std::string::npos && space >= cut / 2) cut = space;
  line.resize(cut);
  while (!line.empty() && (line.back() == ' ' || line.back() == '|' || line.back() == ',' || line.back() == ':' ||
                           line.back() == ';'))
    line.pop_back();
  return line;
}

TurnsProgressLine::~TurnsProgressLine() { clear(); }

void TurnsProgressLine::clear() {
  if (!drawn_) return;
  const std::string text = "\r\x1b[K";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, text.data(), text.size());
  drawn_ = false;
}

void TurnsProgressLine::draw(const std::string& text) {
  const std::string out = "\r\x1b[K" + fit_progress_line(text, stderr_columns());
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, out.data(), out.size());
  drawn_ = true;
}

void TurnsProgressLine::setting_up(const std::string& workload, const std::vector<std::string>& configurations) {
  std::string names;
  for (const auto& c : configurations) names += (names.empty() ? "" : ", ") + c;
  draw(fmt::format("{}: setting up {} (measuring processes start, load data, warm up)", workload, names));
}

void TurnsProgressLine::operator()(const TurnsSnapshot& s) { draw(line(s)); }

std::string TurnsProgressLine::line(const TurnsSnapshot& s) {
  if (s.rounds == 0) return fmt::format("{}: round 1 running, {:.0f} s", s.workload, s.elapsed_s);
  std::string steps;
  const bool same = std::all_of(s.sides.begin(), s.sides.end(), [&](const auto& side) { return side.steps == s.sides.front().steps; });
  if (same) {
    steps = fmt::format("{} steps each", s.sides.front().steps);
  } else {
    for (size_t i = 0; i < s.sides.size(); ++i)
      steps += fmt::format("{}{} {}", i ? ", " : "steps ", s.sides[i].configuration, s.sides[i].steps);
  }
  // The budget: the first active side to reach max_steps or max_seconds ends the turns.
  const double wall_per_round = s.elapsed_s / static_cast<double>(s.rounds);
  double rounds_to_budget = std::numeric_limits<double>::infinity();
  double rounds_to_decide = 0;
  bool deciding = false, all_predicted = true;
  std::string intervals;
  for (const auto& side : s.sides) {
    if (!side.active) continue;
    const double measured_per_round = side.measured_s / static_cast<double>(s.rounds);
    rounds_to_budget = std::min(rounds_to_budget, std::ceil(static_cast<double>(s.max_steps - side.steps) /
                                                            static_cast<double>(std::max<int64_t>(1, s.round_steps))));
    if (measured_per_round > 0)
      rounds_to_budget = std::min(rounds_to_budget, std::ceil((s.max_seconds - side.measured_s) / measured_per_round));
    if (!side.decision) continue;
    const Decision& d = *side.decision;
    intervals += " | " + side.configuration;
    if (d.improvement_pct_bounds)
      intervals += fmt::format(" {:+.1f}..{:+.1f} %", (*d.improvement_pct_bounds)[0], (*d.improvement_pct_bounds)[1]);
    intervals += " " + (d.verdict == CostVerdict::undecided ? std::string("undecided") : to_string(d.verdict));
    if (d.verdict != CostVerdict::undecided) continue;
    deciding = true;
    if (d.seconds_to_decide && measured_per_round > 0)
      rounds_to_decide = std::max(rounds_to_decide, *d.seconds_to_decide / measured_per_round - static_cast<double>(s.rounds));
    else
      all_predicted = false;
  }
  rounds_to_budget = std::max(0.0, rounds_to_budget);
  const double budget_s = std::ceil(rounds_to_budget * wall_per_round);
  const std::string eta =
      deciding && all_predicted && rounds_to_decide < rounds_to_budget
          ? fmt::format("ETA ~{:.0f} s to decide (budget <= {:.0f} s)", std::ceil(std::max(0.0, rounds_to_decide) * wall_per_round), budget_s)
          : fmt::format("ETA <= {:.0f} s (budget)", budget_s);
  return fmt::format("{} round {}: {}, {}{}", s.workload, s.rounds, steps, eta, intervals);
}

void TerminalProgress::operator()(const Progress& p) {
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  drawn_ = true;
  const std::string text = "\r\x1b[K" + fit_progress_line(line(p), stderr_columns());
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, text.data(), text.size());
}

}  // namespace pperf
