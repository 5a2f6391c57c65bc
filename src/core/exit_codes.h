#pragma once
// pperf's exit codes (docs/cli.md), one place for every command and a launched job's entry
// points: 0 ok, 1 a result failed (or regressed), 2 bad input, 3 runtime failure or
// interrupted. Mapped by the CLI for run and cost, by CompareReport::exit_code for compare, and
// in main for exceptions (InputError 2, any other 3).
namespace pperf {

constexpr int kExitOk = 0, kExitResultFailed = 1, kExitBadInput = 2, kExitRuntime = 3;
/// `run`/`cost --history`: the results file is written but the history could not record it
/// (the database went away mid-run); `pperf history record FILE` records it later.
constexpr int kExitHistoryNotRecorded = 5;
/// A launched job's entry point stopped by signal N exits kExitSignalBase + N, as a shell reports
/// a killed process (the training operator restarts a pod only for 128 and more).
constexpr int kExitSignalBase = 128;

}  // namespace pperf
