#pragma once
// The result's figures as one table. Every writer of a run's rows (console, CSV, Markdown, HTML,
// Google Benchmark counters) iterates result_columns(), so showing a new figure in all of them is
// adding one row to the table in reports/columns.cpp. Formats only: nothing here measures or prices.
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace pperf {

/// What a column reads of one Result: a text, or a number with its 95 % CI. Either may be absent
/// (CSV writes an empty field, people see `instead` or "-").
struct Figure {
  std::optional<std::string> text;
  std::optional<double> value;
  std::optional<std::array<double, 2>> ci95;
  std::string instead;  // shown to people in place of a missing value ("baseline"); never in CSV
};

/// How people read a number (console, Markdown, HTML). CSV and counters keep the raw value.
struct Style {
  enum Kind { text, significant, fixed, count, word };  // word: from a closed set (true, ok), written bare
  Kind kind = text;
  int digits = 4;     // significant digits (significant) or decimals (fixed)
  double scale = 1;   // shown = raw x scale (a fraction shown as %)
  /// Shown values above this get a "!": they cannot be true (the result has an event saying why).
  std::optional<double> impossible_above;
};

/// Where a column is shown besides the console.
enum Shown : unsigned { kCsv = 1u << 0, kMarkdown = 1u << 1, kHtml = 1u << 2, kGbench = 1u << 3 };
constexpr unsigned kEveryFile = kCsv | kMarkdown | kHtml;

/// The console's place for a column: never; 0 always shown; 1..5 dropped first from 5 down when
/// the terminal is narrow; only with --wide (or on a terminal-less stdout, which has no width).
constexpr int kConsoleNever = -1, kConsoleWideOnly = 6;

struct Column {
  /// CSV header and counter name; it names the raw value's unit ("step_ms_median").
  std::string key;
  /// What people read, with the shown unit. "{cur}" is the currency; "{steps}" the number of steps
  /// money per step is shown per (the console picks it so no cost reads 0; files use 100 steps).
  std::string header;
  Style style;
  std::function<Figure(const Result&)> read;
  int console = kConsoleNever;     // the value's console priority
  int console_ci = kConsoleNever;  // its 95 % CI as a console column of its own ("lo..hi")
  unsigned shown = 0;              // Shown flags
  /// CSV's CI columns are ci_key + "_lo" / "_hi" ("" when the CSV has no CI for it).
  std::string ci_key;
  /// Names the row (workload, configuration, notes): shown whatever the result's status. Other
  /// columns show only for a result that finished (status ok with a step time).
  bool identity = false;
  /// Money per step: scaled to the "{steps}" of the header.
  bool money_per_step = false;
  /// The configuration column: writers mark the baseline in it (" *", " (baseline)").
  bool marks_baseline = false;
};

/// The columns in the order every writer shows them.
const std::vector<Column>& result_columns();

/// Money per how many steps people read: the smallest of 100, 1k, ... 1M steps at which the
/// cheapest result's cost per step reads at least 0.01, so no figure prints as zero: {1e3, "1k steps"}.
std::pair<double, std::string> money_scale(const std::vector<Result>& results);

/// A Result's figures are shown to people only when it finished (ok, with a step time).
bool shows_figures(const Result& r);

/// `value` with `significant` significant digits in fixed notation (never "0.0000" for a
/// non-zero value, never an exponent): 0.000051234 -> "0.0000512".
std::string significant(double value, int significant = 3);

/// A number as people read it in `style` (scaled, digits, "!" when impossible).
std::string format_for_people(double raw, const Style& style);
/// A column's figure of `r` as people read it: the text, the number, `instead`, or "-".
std::string cell_for_people(const Column& column, const Figure& figure, double money_steps = 1);
/// The CI "lo..hi" as people read it, or "-".
std::string ci_for_people(const Column& column, const Figure& figure, double money_steps = 1);
/// The header people read: "{cur}" and "{steps}" filled in.
std::string header_for_people(const Column& column, const std::string& currency, const std::string& steps);

/// The notes of a result: status, partial, interrupted, unconverged, warming up, undecided,
/// 1 process; and what each note means (for a legend under a table).
std::vector<std::string> notes_of(const Result& r);
const std::vector<std::pair<std::string, std::string>>& note_meanings();

/// One sentence per decided (or undecided) configuration, what every writer leads with:
/// "heterogeneous vs homogeneous (resnet50_augment/tiny batch 64): cheaper per step, improvement
/// +38.2 % (+35.1 to +41.0 %; 95 % confidence sequence over 24 paired rounds); 2.05x faster".
std::vector<std::string> decision_sentences(const std::vector<Result>& results);

/// A sweep's own statement (RunReport::sweep), one sentence per race: the best point with its
/// cost and 95 % CI, the points equivalent to it, how many points left the race and why it ended,
/// at its simultaneous level. {} without a sweep.
std::vector<std::string> sweep_sentences(const std::optional<SweepRecord>& sweep, const std::string& currency);

/// For a sweep, said beside decision_sentences(): those are pairwise against the baseline at 95 %
/// each, not simultaneous, so where one reads differently from the race the race's statement holds.
/// "" without a sweep.
std::string sweep_pairwise_note(const std::optional<SweepRecord>& sweep);

/// A sweep's figures as its tables show them: the number in `format`, "-" when absent.
std::string figure_or_dash(const std::optional<double>& x, const char* format);
/// "[lo, hi]" in `format`, "-" when absent.
std::string bounds_or_dash(const std::optional<std::array<double, 2>>& b, const char* format);

/// The groups with their market, as the run's tables show them: "1x ml.p4d.24xlarge + 2x ml.c5.18xlarge (spot)".
std::string instances_by_market(const std::vector<PricedGroup>& groups);
/// The groups with their role, as the advice shows them (its market is a column of its own):
/// "4x g5.2xlarge + 2x c5.4xlarge (data)".
std::string instances_by_role(const std::vector<PricedGroup>& groups);
/// "workload/preset batch 32".
std::string workload_label(const Result& r);

/// The columns that the writer `shown` shows, in table order.
std::vector<const Column*> columns_of(Shown shown);
/// The text of a row without figures (failed, not run): its status and why.
std::string failure(const Result& r);

}  // namespace pperf
