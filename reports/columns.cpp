#include "reports/columns.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "src/core/result_events.h"
#include "src/core/utc_time.h"
#include "src/stats/decision.h"
#include "src/stats/intervals.h"

namespace pperf {

namespace {

Figure text(std::string s) { return Figure{std::move(s), std::nullopt, std::nullopt, ""}; }
Figure number(std::optional<double> v, std::optional<std::array<double, 2>> ci = std::nullopt, std::string instead = "") {
  return Figure{std::nullopt, v, ci, std::move(instead)};
}
Figure flag(bool b) { return text(b ? "true" : "false"); }

bool undecided(const Result& r) { return r.decision && r.decision->verdict == CostVerdict::undecided; }

/// Priced for more dnn instances than processes measured (data-parallel ranks are one process).
bool measured_as_fewer_processes(const Result& r) {
  if (r.distributed) return false;  // measured as data-parallel ranks
  for (const auto& g : r.instances)
    if (g.role == "dnn" && g.count > 1) return true;
  return false;
}

constexpr Style kText{Style::text}, kCount{Style::count}, kWord{Style::word};
constexpr Style sig(int digits) { return Style{Style::significant, digits}; }
constexpr Style fixed(int decimals, double scale = 1) { return Style{Style::fixed, decimals, scale}; }

/// A column named field by field: what it reads, then where it is shown and what it is.
struct ColumnRow {
  Column column;
  ColumnRow(std::string key, std::string header, Style style, std::function<Figure(const Result&)> read) {
    column.key = std::move(key);
    column.header = std::move(header);
    column.style = style;
    column.read = std::move(read);
  }
  /// Its console priority, and its CI's as a column of its own.
  ColumnRow& console(int priority, int ci_priority = kConsoleNever) {
    column.console = priority;
    column.console_ci = ci_priority;
    return *this;
  }
  /// The files that show it besides the console, and CSV's CI columns' key.
  ColumnRow& files(unsigned shown, std::string ci_key = "") {
    column.shown = shown;
    column.ci_key = std::move(ci_key);
    return *this;
  }
  ColumnRow& identity() { return column.identity = true, *this; }
  ColumnRow& money_per_step() { return column.money_per_step = true, *this; }
  ColumnRow& marks_baseline() { return column.marks_baseline = true, *this; }
  operator Column() const { return column; }
};

std::vector<Column> make_columns() {
  using R = const Result&;
  std::vector<Column> c;
  // Identity: which pair a row is.
  c.push_back(ColumnRow("workload", "workload", kText, [](R r) { return text(r.workload); }).files(kCsv).identity());
  c.push_back(ColumnRow("preset", "preset", kText, [](R r) { return text(r.preset); }).files(kCsv).identity());
  c.push_back(ColumnRow("batch_size", "batch", kCount, [](R r) { return number(static_cast<double>(r.batch_size)); })
                  .files(kCsv).identity());
  // The console says a single workload once above its table, and drops this column then.
  c.push_back(ColumnRow("workload_label", "workload", kText, [](R r) { return text(workload_label(r)); })
                  .console(1).files(kMarkdown | kHtml).identity());
  c.push_back(ColumnRow("configuration", "configuration", kText, [](R r) { return text(r.configuration); })
                  .console(0).files(kEveryFile).identity().marks_baseline());
  // The decisions lead above the table; in a narrow terminal the column goes first.
  c.push_back(ColumnRow("verdict", "verdict", kWord, [](R r) {
                return r.decision ? text(to_string(r.decision->verdict))
                                  : Figure{std::nullopt, std::nullopt, std::nullopt, r.baseline ? "baseline" : ""};
              }).console(2).files(kEveryFile).identity());
  c.push_back(ColumnRow("baseline", "baseline", kWord, [](R r) { return flag(r.baseline); }).files(kCsv).identity());
  c.push_back(ColumnRow("measured", "measured", kWord, [](R r) { return flag(r.measured); }).files(kCsv).identity());
  c.push_back(ColumnRow("status", "status", kWord, [](R r) { return text(to_string(r.status)); })
                  .files(kCsv).identity());
  c.push_back(ColumnRow("instances", "instances", kText, [](R r) { return text(instances_by_market(r.instances)); })
                  .console(3).files(kEveryFile).identity());
  // Step time.
  c.push_back(ColumnRow("step_ms_median", "median ms", sig(4), [](R r) {
                return r.step ? number(r.step->median_ms, r.step->ci95_ms) : Figure{};
              }).console(0, 4).files(kEveryFile, "step_ms_ci95"));
  c.push_back(ColumnRow("step_n", "steps", kCount, [](R r) {
                return r.measurement ? number(static_cast<double>(r.measurement->step_ms.size())) : number(std::nullopt, {}, "given");
              }).console(kConsoleWideOnly).files(kEveryFile));
  c.push_back(ColumnRow("step_ms_mean", "mean ms", sig(4), [](R r) { return r.step ? number(r.step->mean_ms) : Figure{}; })
                  .console(1).files(kEveryFile));
  c.push_back(ColumnRow("step_cv", "CV %", fixed(1, 100), [](R r) { return r.spread ? number(r.spread->cv) : Figure{}; })
                  .console(5).files(kEveryFile | kGbench));
  c.push_back(ColumnRow("samples_per_s", "samples/s", fixed(1), [](R r) { return number(r.samples_per_s); })
                  .console(3).files(kEveryFile));
  c.push_back(ColumnRow("data_wait_fraction", "data wait %", fixed(1, 100), [](R r) { return number(r.data_wait_fraction); })
                  .console(3).files(kEveryFile | kGbench));
  // Money.
  c.push_back(ColumnRow("usd_per_hour", "{cur}/h", sig(4), [](R r) { return r.cost ? number(r.cost->usd_per_hour) : Figure{}; })
                  .console(2).files(kEveryFile | kGbench));
  c.push_back(ColumnRow("usd_per_step", "{cur}/{steps}", sig(3), [](R r) {
                return r.cost ? number(r.cost->usd_per_step, r.cost->usd_per_step_ci95) : Figure{};
              }).console(0, 5).files(kEveryFile, "usd_per_step_ci95").money_per_step());
  c.push_back(ColumnRow("usd_per_1m_samples", "{cur}/1M samples", sig(4), [](R r) {
                return r.cost ? number(r.cost->usd_per_1m_samples, r.cost->usd_per_1m_samples_ci95) : Figure{};
              }).console(kConsoleWideOnly, kConsoleWideOnly).files(kEveryFile | kGbench, "usd_per_1m_samples_ci95"));
  // Against the baseline.
  c.push_back(ColumnRow("improvement_pct", "improvement %", fixed(1), [](R r) {
                return number(r.comparison.improvement_pct, r.comparison.improvement_pct_ci95, r.baseline ? "baseline" : "");
              }).console(0, 2).files(kEveryFile | kGbench, "improvement_pct_ci95"));
  c.push_back(ColumnRow("speedup", "speedup x", fixed(2), [](R r) { return number(r.comparison.speedup); })
                  .console(1).files(kEveryFile | kGbench));
  c.push_back(ColumnRow("mfu", "MFU %", Style{Style::fixed, 1, 100, 1.0}, [](R r) { return number(r.mfu); })
                  .console(3).files(kEveryFile | kGbench));
  c.push_back(ColumnRow("peak_memory_bytes", "peak mem GiB", fixed(2, 1.0 / (1LL << 30)), [](R r) {
                return r.memory && r.memory->peak_bytes() > 0 ? number(static_cast<double>(r.memory->peak_bytes())) : Figure{};
              }).console(kConsoleWideOnly).files(kEveryFile | kGbench));
  // What to know about the row.
  c.push_back(ColumnRow("notes", "notes", kText, [](R r) { return text(fmt::to_string(fmt::join(notes_of(r), ", "))); })
                  .console(0).files(kEveryFile).identity());
  c.push_back(ColumnRow("reason", "reason", kText, [](R r) { return text(r.reason); }).files(kCsv).identity());
  return c;
}

}  // namespace

const std::vector<Column>& result_columns() {
  static const std::vector<Column> columns = make_columns();
  return columns;
}

std::pair<double, std::string> money_scale(const std::vector<Result>& results) {
  double cheapest = 0;
  for (const auto& r : results)
    if (r.cost && r.cost->usd_per_step > 0) cheapest = cheapest == 0 ? r.cost->usd_per_step : std::min(cheapest, r.cost->usd_per_step);
  const std::vector<std::pair<double, std::string>> scales = {
      {100, "100 steps"}, {1e3, "1k steps"}, {1e4, "10k steps"}, {1e5, "100k steps"}, {1e6, "1M steps"}};
  for (const auto& s : scales)
    if (cheapest * s.first >= 0.01) return s;
  return scales.back();
}

bool shows_figures(const Result& r) { return r.status == ResultStatus::ok && r.step.has_value(); }

std::string significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return fmt::format("{}", value);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string format_for_people(double raw, const Style& style) {
  const double v = raw * style.scale;
  std::string out;
  switch (style.kind) {
    case Style::significant: out = significant(v, style.digits); break;
    case Style::fixed: out = fmt::format("{:.{}f}", v, style.digits); break;
    case Style::count: out = fmt::format("{:.0f}", v); break;
    case Style::text:
    case Style::word: out = fmt::format("{}", v); break;
  }
  if (style.impossible_above && raw > *style.impossible_above) out += "!";
  return out;
}

std::string cell_for_people(const Column& column, const Figure& figure, double money_steps) {
  if (figure.text) return *figure.text;
  if (figure.value) return format_for_people(*figure.value * (column.money_per_step ? money_steps : 1), column.style);
  return figure.instead.empty() ? "-" : figure.instead;
}

std::string ci_for_people(const Column& column, const Figure& figure, double money_steps) {
  if (!figure.ci95) return "-";
  const double k = column.money_per_step ? money_steps : 1;
  return format_for_people((*figure.ci95)[0] * k, column.style) + ".." + format_for_people((*figure.ci95)[1] * k, column.style);
}

std::string header_for_people(const Column& column, const std::string& currency, const std::string& steps) {
  std::string out = column.header;
  for (const auto& [token, value] : {std::pair<std::string, std::string>{"{cur}", currency}, {"{steps}", steps}})
    for (size_t at; (at = out.find(token)) != std::string::npos;) out.replace(at, token.size(), value);
  return out;
}

std::vector<std::string> notes_of(const Result& r) {
  std::vector<std::string> notes;
  if (r.status != ResultStatus::ok) notes.push_back(to_string(r.status));
  if (r.partial) notes.push_back("partial");
  if (r.measurement && r.measurement->interrupted()) notes.push_back("interrupted");
  if (r.converged && !*r.converged) notes.push_back("unconverged");
  if (warming_up(r)) notes.push_back("warming up");  // the measure stage tested it once
  if (undecided(r)) notes.push_back("undecided");
  if (r.status == ResultStatus::ok && measured_as_fewer_processes(r)) notes.push_back("1 process");
  return notes;
}

const std::vector<std::pair<std::string, std::string>>& note_meanings() {
  static const std::vector<std::pair<std::string, std::string>> meanings = {
      {"1 process", "priced for several dnn instances but measured as one process"},
      {"undecided", "not decided against the baseline at 95 % within the budget (the decision says what would decide it)"},
      {"interrupted", "stopped by Ctrl-C/SIGTERM before its stop rule fired"},
      {"partial", "a data source failed mid-run; the steps measured before are kept"},
      {"unconverged", "stopped on max_steps/max_seconds before the CI reached target_rel_ci"},
      {"warming up", "step times still fall over the measured steps (Mann-Kendall trend); raise warmup_steps"}};
  return meanings;
}

std::vector<std::string> decision_sentences(const std::vector<Result>& results) {
  std::vector<std::string> out;
  for (const auto& r : results) {
    if (!r.decision || !r.comparison.improvement_pct) continue;
    const auto base = std::find_if(results.begin(), results.end(), [&](const Result& b) {
      return b.baseline && b.workload == r.workload && b.preset == r.preset && b.batch_size == r.batch_size;
    });
    const Decision& d = *r.decision;
    // The interval once: where the decision's reason already states it, the lead does not.
    std::string bounds;
    if (d.improvement_pct_bounds) {
      const std::string lo = fmt::format("{:+.1f} %", (*d.improvement_pct_bounds)[0]),
                        hi = fmt::format("{:+.1f} %", (*d.improvement_pct_bounds)[1]);
      if (d.reason.find(lo) == std::string::npos || d.reason.find(hi) == std::string::npos)
        bounds = fmt::format(" ({:+.1f} to {:+.1f} %)", (*d.improvement_pct_bounds)[0], (*d.improvement_pct_bounds)[1]);
    }
    std::string speed;
    if (const auto& s = r.comparison.speedup)
      speed = std::abs(*s - 1) < 0.005 ? "; the same speed"
              : *s >= 1               ? fmt::format("; {:.2f}x faster", *s)
                                      : fmt::format("; {:.2f}x slower", 1 / *s);
    out.push_back(fmt::format("{} vs {} ({}): {}, improvement {:+.1f} %{}{}. {:.0f} % {}, {} look{}: {}.", r.configuration,
                              base == results.end() ? "baseline" : base->configuration, workload_label(r),
                              verdict_phrase(d.verdict, d.equivalence_pct), *r.comparison.improvement_pct, bounds, speed,
                              d.confidence * 100, d.method, d.looks, d.looks == 1 ? "" : "s", d.reason));
  }
  return out;
}

namespace {
bool has_races(const std::optional<SweepRecord>& sweep) { return sweep && !sweep->races.empty(); }
}  // namespace

std::string figure_or_dash(const std::optional<double>& x, const char* format) {
  return x ? fmt::format(fmt::runtime(format), *x) : std::string("-");
}

std::string bounds_or_dash(const std::optional<std::array<double, 2>>& b, const char* format) {
  return b ? "[" + fmt::format(fmt::runtime(format), (*b)[0]) + ", " + fmt::format(fmt::runtime(format), (*b)[1]) + "]" : std::string("-");
}

std::vector<std::string> sweep_sentences(const std::optional<SweepRecord>& sweep, const std::string& currency) {
  std::vector<std::string> out;
  if (!has_races(sweep)) return out;
  for (const auto& race : sweep->races) {
    size_t eliminated = 0, undecided_points = 0;
    for (const auto& p : race.points) {
      eliminated += p.verdict == "eliminated";
      undecided_points += p.verdict == "undecided";
    }
    std::string best = "no point (none was measured)";
    if (const SweepPoint* p = race.best_point()) {
      best = p->configuration;
      if (p->usd_per_1m_samples) best += fmt::format(" at {:.4g} {} per 1M samples", *p->usd_per_1m_samples, currency);
      if (p->usd_per_1m_samples_ci95)
        best += fmt::format(" (95 % CI {:.4g} to {:.4g})", (*p->usd_per_1m_samples_ci95)[0], (*p->usd_per_1m_samples_ci95)[1]);
    }
    out.push_back(fmt::format("Sweep of {} ({} points): best {}; equivalent to it within ±{:g} %: {}; {} eliminated, {} undecided. "
                              "The race ended after {} rounds: {}. Each point against the best at {:.2f} % (Bonferroni over "
                              "the k − 1 comparisons: {:g} % together).",
                              race.workload, race.points.size(), best, race.equivalence_pct,
                              race.equivalent.empty() ? "none" : fmt::to_string(fmt::join(race.equivalent, ", ")), eliminated,
                              undecided_points, race.rounds, race.stop, race.comparison_confidence * 100, race.confidence * 100));
  }
  return out;
}

std::string sweep_pairwise_note(const std::optional<SweepRecord>& sweep) {
  if (!has_races(sweep)) return "";
  return "The lines against the baseline are pairwise: each at 95 % on its own, not simultaneous across the sweep's points, "
         "and against the baseline rather than the best. Where one reads differently from the sweep's race (a pair "
         "\"equivalent\" there can be \"undecided\" in the race, whose comparisons are each at a higher level), "
         "the race's statement is the one that holds for all points together.";
}

std::string instances_by_market(const std::vector<PricedGroup>& groups) {
  std::string out;
  for (const auto& g : groups)
    out += fmt::format("{}{}x {}{}", out.empty() ? "" : " + ", g.count, g.type, g.market == Market::spot ? " (spot)" : "");
  return out;
}

std::string instances_by_role(const std::vector<PricedGroup>& groups) {
  std::string out;
  for (const auto& g : groups)
    out += fmt::format("{}{}x {}{}", out.empty() ? "" : " + ", g.count, g.type, g.role == "data" ? " (data)" : "");
  return out;
}

std::string workload_label(const Result& r) {
  return r.workload + (r.preset.empty() ? "" : "/" + r.preset) + " batch " + std::to_string(r.batch_size);
}

std::vector<const Column*> columns_of(Shown writer) {
  std::vector<const Column*> out;
  for (const Column& c : result_columns())
    if (c.shown & writer) out.push_back(&c);
  return out;
}

std::string failure(const Result& x) { return to_string(x.status) + (x.reason.empty() ? "" : ": " + x.reason); }

}  // namespace pperf
