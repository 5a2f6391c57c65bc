#pragma once
// `pperf decide`'s sentences, written from its record (src/core/decide_record.h) and the
// results' `hosts`: each input's line, the notes every format shows (console, Markdown, HTML;
// the JSON holds the fields they are made of), and each candidate's decision.reason.
#include <string>
#include <vector>

#include "src/core/decide_record.h"
#include "src/core/result.h"

namespace pperf {

/// Where and when each input run was measured, one line each: "p4d-1.json (p4d): host p4d-1,
/// platform aws, instance p4d.24xlarge i-0abc; on ip-10-0-0-1 (AMD EPYC 7R13, 96 logical CPUs);
/// started 2026-01-01T02:30:00Z, 2.5 h after the first run". {} for a report that is not a decision.
std::vector<std::string> decide_input_lines(const RunReport& report);

/// The notes of a decision, in this order: each difference --accept let through, each input
/// priced with another table than the one decide re-priced with, then per workload (the
/// results' order) a workload without its baseline's result and each configuration's hosts:
/// "p4d: 2 hosts, between-host spread 1.2 % from its 2 hosts". {} for a report that is not one.
std::vector<std::string> decide_notes(const RunReport& report);

/// Writes each decided candidate's decision.reason from the record's facts (DecideReasonFacts)
/// and the two results' `hosts`: how far apart, on how many hosts, what the between-host
/// variance rests on, and what would decide it; the rule's own sentence last. Results the
/// record has no facts for (a record read back from a file) keep their reason.
void decide_reasons(RunReport& report);

}  // namespace pperf
