// The console report: fits the width it is given, says what ran where, flags the states that
// matter, prints money with significant digits, and ends with one sentence per configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "test_helpers.h"
#include "src/core/result_events.h"
#include "src/core/results_json.h"
#include "reports/columns.h"
#include "reports/formats.h"
#include "reports/text.h"

using namespace pperf;

namespace {
RunReport golden_run() {
  return read_results_file(pperf::testing::source_dir() + "/tests/data/results/run_tiny.json");
}

size_t widest_line(const std::string& text) {
  std::stringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

std::string table_part(const std::string& text) {  // header + rule + rows: up to the first blank-free prose line
  return text.substr(0, text.find("Measured"));
}
}  // namespace

TEST(Console, SignificantDigitsNeverPrintZero) {
  EXPECT_EQ(significant(0.000051234, 3), "0.0000512");
  EXPECT_EQ(significant(1234.5, 3), "1234");
  EXPECT_EQ(significant(0.2010, 4), "0.2010");
  EXPECT_EQ(significant(45.032, 4), "45.03");
}

TEST(Console, WrapKeepsANumberWithItsUnit) {
  // At 20 columns the last space that fits is the one inside "25 %": the break moves before 25.
  EXPECT_EQ(wrap("speed factor 1, +-25 % stated", 20), "speed factor 1,\n  +-25 % stated\n");
  EXPECT_EQ(wrap("a step of 150.6 ms here", 17), "a step of\n  150.6 ms here\n");
  // A longer word after a number is an ordinary break.
  EXPECT_EQ(wrap("knee at 0 data instances", 10), "knee at 0\n  data\n  instances\n");
  // An interval stays whole, with its unit.
  EXPECT_EQ(wrap("step time [54, 78.59] ms", 18), "step time\n  [54, 78.59] ms\n");
  EXPECT_EQ(wrap("the step [54, 78.59] ms", 21), "the step\n  [54, 78.59] ms\n");
}

TEST(Console, FitsTheWidthItIsGivenAndWideShowsEverything) {
  const RunReport report = golden_run();
  const std::string narrow = to_console(report, {100, false});
  EXPECT_LE(widest_line(table_part(narrow)), 100u) << narrow;
  const std::string wide = to_console(report, {100, true});
  EXPECT_GT(widest_line(table_part(wide)), 100u);
  for (const char* header : {"configuration", "median ms", "improvement %", "notes"})
    EXPECT_NE(narrow.find(header), std::string::npos) << header;
  for (const char* header : {"samples/s", "data wait %", "USD/h", "speedup x", "instances"})
    EXPECT_NE(wide.find(header), std::string::npos) << header;
}

TEST(Console, SaysWhatRanWhereAndWhatWasPriced) {
  const std::string out = to_console(golden_run());
  EXPECT_NE(out.find("not on the priced instances"), std::string::npos) << out;
  EXPECT_NE(out.find("logical CPUs"), std::string::npos);
  EXPECT_NE(out.find("service: trainer on any CPU, 1 thread, 1 process; data: 1 data worker"), std::string::npos) << out;
  EXPECT_NE(out.find("* baseline."), std::string::npos);
}

namespace {
Decision decision(CostVerdict verdict, std::array<double, 2> bounds, int64_t looks, const std::string& reason) {
  Decision d;
  d.verdict = verdict;
  d.improvement_pct_bounds = bounds;
  d.looks = looks;
  d.method = "confidence sequence over paired rounds";
  d.reason = reason;
  return d;
}
}  // namespace

TEST(Console, FlagsUndecidedUnconvergedPartialAndFewerProcesses) {
  RunReport report = golden_run();
  Result& spot = report.results[1];
  spot.comparison.improvement_pct = 2.0;
  spot.comparison.improvement_pct_ci95 = std::array<double, 2>{-3.0, 7.0};
  spot.decision = decision(CostVerdict::undecided, {-4.0, 8.0}, 20, "about 80 rounds would likely decide it");
  spot.converged = false;
  spot.partial = true;
  spot.instances[0].count = 4;
  const std::string out = to_console(report);
  EXPECT_NE(out.find("partial, unconverged, undecided, 1 process"), std::string::npos) << out;
  EXPECT_EQ(out.find("spot vs ondemand (mnist_heavy/tiny batch 32): undecided, improvement +2.0 % (-4.0 to +8.0 %); the same speed. 95 % "
                     "confidence sequence over paired rounds, 20 looks: about 80 rounds would likely decide it."),
            0u)
      << "the verdict comes first\n" << out;
  EXPECT_NE(out.find("undecided: not decided against the baseline at 95 %"), std::string::npos);
  EXPECT_NE(out.find("1 process: priced for several dnn instances"), std::string::npos);
}

TEST(Console, OneDecisionPerConfigurationAndNoBaselineSaysSo) {
  RunReport report = golden_run();
  Result& spot = report.results[1];
  spot.comparison.improvement_pct = 9.2;
  spot.comparison.speedup = 1.32;
  spot.decision = decision(CostVerdict::cheaper, {6.0, 12.0}, 9, "cheaper per step by +6.0 % to +12.0 %");
  Result& service = report.results[2];
  service.comparison.improvement_pct = -41.7;
  service.comparison.speedup = 0.5;
  service.decision = decision(CostVerdict::dearer, {-47.3, -38.1}, 8, "dearer per step");
  std::string out = to_console(report, {0, true});
  // The reason states the interval: the lead does not repeat it.
  EXPECT_NE(out.find("spot vs ondemand (mnist_heavy/tiny batch 32): cheaper per step, improvement +9.2 %; "
                     "1.32x faster. 95 % confidence sequence over paired rounds, 9 looks: cheaper per step by +6.0 % to +12.0 %."),
            std::string::npos) << out;
  const std::string lead = out.substr(0, out.find('\n'));
  EXPECT_EQ(lead.find("+6.0"), lead.rfind("+6.0")) << "the interval said once: " << lead;
  EXPECT_NE(out.find("service vs ondemand (mnist_heavy/tiny batch 32): dearer per step, improvement -41.7 % (-47.3 to -38.1 %); "
                     "2.00x slower."),
            std::string::npos) << out;
  spot.decision->verdict = CostVerdict::equivalent;
  spot.decision->improvement_pct_bounds = std::array<double, 2>{-1.5, 1.9};
  EXPECT_NE(to_console(report, {0, true}).find("spot vs ondemand (mnist_heavy/tiny batch 32): the same cost per step within ±2 %"),
            std::string::npos);
  report.results.erase(report.results.begin());  // --only without the baseline
  for (auto& r : report.results) r.comparison = {};
  out = to_console(report);
  EXPECT_EQ(out.find("* baseline"), std::string::npos);
  EXPECT_NE(out.find("No baseline in this run"), std::string::npos);
}

TEST(Console, MoneyUnitIsChosenSoNoFigureReadsZero) {
  RunReport report = golden_run();
  for (auto& r : report.results)
    if (r.cost) r.cost->usd_per_step = 1e-9;
  const std::string out = to_console(report);
  EXPECT_NE(out.find("USD/1M steps"), std::string::npos) << out;
  EXPECT_EQ(out.find(" 0.0000 "), std::string::npos);
}

// The "warming up" note is the measure stage's verdict (its Mann-Kendall test, run once), read
// back from the event it recorded: falling step times alone, without the event, are not tested again.
TEST(Console, WarmingUpNoteReadsTheMeasureStagesEvent) {
  const auto has_note = [](const Result& r) {
    const auto notes = notes_of(r);
    return std::find(notes.begin(), notes.end(), "warming up") != notes.end();
  };
  Result r;
  r.measurement = Measurement{};
  for (int i = 40; i > 0; --i) r.measurement->step_ms.push_back(100 + i);
  EXPECT_FALSE(has_note(r));
  r.events.push_back(std::string(kWarmingUpEvent) + "step times fall over the measured steps (Mann-Kendall z = -8.00, p = 1e-15)");
  EXPECT_TRUE(warming_up(r));
  EXPECT_TRUE(has_note(r));
}
