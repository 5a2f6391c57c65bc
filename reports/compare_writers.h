#pragma once
// Writers over a CompareReport: a console table, GitHub-flavoured Markdown (regressions first;
// fit for $GITHUB_STEP_SUMMARY or a merge-request comment) and JUnit XML (one testcase per
// pair, regressions, missing and failed pairs as failures with the figures in the message).
// They format only; the verdicts are made in reports/compare.h.
#include <string>
#include <vector>

#include "reports/compare.h"

namespace pperf {

std::string compare_console(const CompareReport& report);
std::string compare_markdown(const CompareReport& report);
std::string compare_junit(const CompareReport& report);

/// "N pair(s): a regressed, b improved, ..." with every verdict's count.
std::string compare_summary_sentence(const CompareReport& report);

/// Pairs in the order reports list them: regressed, failed, missing, improved, new, undecided, unchanged
/// (stable within a verdict).
std::vector<const PairComparison*> pairs_by_severity(const CompareReport& report);

/// One line with a pair's figures: "mean step time +12.3 % [95 % CI +10.1, +14.0], q = 0.001; ...".
std::string pair_figures_line(const PairComparison& pair, const std::string& currency);

/// "workload/preset/batch" (the pair's name without its configuration).
std::string pair_workload_label(const PairComparison& pair);

}  // namespace pperf
