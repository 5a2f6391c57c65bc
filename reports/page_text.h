#pragma once
// Text that several formats of one page share (console, Markdown, JUnit, HTML): the compare
// page's figures and sentences, the advice page's labels, the projection's. Formats only.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "src/core/advice.h"
#include "src/compare/compare.h"
#include "src/project/report.h"

namespace pperf {

/// "N pair(s): a regressed, b improved, ..." with every verdict's count.
std::string compare_summary_sentence(const CompareReport& report);
/// Pairs in the order reports list them: regressed, failed, missing, improved, new, undecided, unchanged
/// (stable within a verdict).
std::vector<const PairComparison*> pairs_by_severity(const CompareReport& report);
/// One line with a pair's figures: "mean step time +12.3 % [95 % CI +10.1, +14.0], q = 0.001; ...".
std::string pair_figures_line(const PairComparison& pair, const std::string& currency);
/// "workload/preset/batch" (the pair's name without its configuration).
std::string pair_workload_label(const PairComparison& pair);
/// "FILE (description): config C, git G, started T".
std::string side_line(const CompareSide& side);
/// A table's cells: "[+1.0, +2.0]", "12.3 -> 13.1" (ms), USD per 100 steps "a -> b", the cost
/// change with its time and price parts, q ("n/a" when compared by threshold), a value or "-".
std::string ci_text(const std::optional<std::array<double, 2>>& ci);
std::string mean_text(const PairComparison& pair);
std::string money_text(const PairComparison& pair);
std::string cost_change_text(const PairComparison& pair);
std::string q_text(const PairComparison& pair);
std::string opt(const std::optional<double>& v, const char* format);
/// How the comparison decided, one paragraph (the Markdown and HTML footers).
std::string method_sentence(const CompareReport& report);
/// "🔴 regressed", "🟢 improved", ...
std::string verdict_badge(Verdict verdict);

/// "Spot" or "On-Demand".
std::string market_name(const std::string& market);
/// The row's 95th-percentile cost, "12.3 USD", or "-".
std::string p95_text(const AdviceRow& row);
/// The row's run verdict against its baseline, "cheaper per step against its run's baseline
/// (improvement +38.2 %, 95 % confidence)"; "" without one.
std::string advice_decision_text(const AdviceRow& row);
/// Why the row ranks where it does, one line: the decision first, then "cheapest: ..." for #1
/// or how much more than its workload's #1, and the risk (Spot: p95, interruptions, wall hours
/// and the price range's spread; On-Demand: hours).
std::string advice_reason(const Advice& advice, const AdviceRow& row);

/// "2 x c5.4xlarge + 1 x c5.xlarge": a candidate cluster, trainers first.
std::string cluster_text(const project::Candidate& c);
/// "12.3 [11, 14]": a value and its interval, each in `format`.
std::string range_text(const project::Range& r, const char* format);
/// The knee in words: where added vCPUs stop shortening the step.
std::string knee_text(const project::WorkloadProjection& w);
/// One indented line, ending in a newline, on what data instances do for this workload
/// (nothing known and why, nothing, or nothing at these prices); "" when the cheapest has some.
std::string data_instances_line(const project::WorkloadProjection& w);

}  // namespace pperf
