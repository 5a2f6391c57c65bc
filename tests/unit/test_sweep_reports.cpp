// A sweep's race as each writer shows it (docs/statistics.md "Sweeps"): the console's table fits
// the terminal one point a line, the HTML and Markdown lead with the race's own statement and say
// that the pairwise lines are not simultaneous, the Markdown has the sweep's table, and the dot
// chart's axis is fitted to the intervals and says it does not start at 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_helpers.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "reports/formats.h"
#include "reports/page.h"

using namespace pperf;

namespace {

/// The golden run with the race of tests/e2e/sweep_test.sh's four points (a real run's record):
/// best data_instances=1,prefetch_batches=4 at 0.4307 USD per 1M samples, the other one-instance
/// point undecided, both four-instance points eliminated after round 8 against the best.
RunReport sweep_run() {
  RunReport report = read_results_file(pperf::testing::source_dir() + "/tests/data/results/run_tiny.json");
  std::ifstream in(pperf::testing::source_dir() + "/tests/data/races/sweep_race.json");
  report.sweep = read_sweep(JsonView(nlohmann::json::parse(in), "sweep_race.json"));
  Result& r = report.results[1];
  r.comparison.improvement_pct = 1.2;
  Decision d;
  d.verdict = CostVerdict::equivalent;
  d.improvement_pct_bounds = std::array<double, 2>{-1.5, 1.9};
  d.looks = 40;
  d.method = "confidence sequence over paired rounds";
  d.reason = "within ±2 %";
  r.decision = d;
  return report;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST(SweepReport, ConsoleRowsFitTheWidthOnOneLineEach) {
  const RunReport report = sweep_run();
  const std::string narrow = sweep_table(report.sweep, "USD", 100);
  for (const auto& line : lines_of(narrow)) EXPECT_LE(line.size(), 100u) << line;
  // One line per point, cheapest first, the round an eliminated point left on its own line.
  const std::regex row("^  (data_instances=[14],prefetch_batches=[24]) +[0-9.]+ .* (best|undecided|eliminated after round 8)$");
  std::vector<std::string> rows;
  for (const auto& line : lines_of(narrow)) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows.push_back(m[1].str() + " " + m[2].str());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"data_instances=1,prefetch_batches=4 best", "data_instances=1,prefetch_batches=2 undecided",
                                            "data_instances=4,prefetch_batches=2 eliminated after round 8",
                                            "data_instances=4,prefetch_batches=4 eliminated after round 8"}))
      << narrow;
  EXPECT_EQ(narrow.find("(against"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("Left out at this width: 95% CI (--wide shows every column)."), std::string::npos) << narrow;
  // Without a width: every column, the prose unwrapped, and whom each point lost to in the note.
  const std::string wide = sweep_table(report.sweep, "USD", 0);
  EXPECT_NE(wide.find("95% CI"), std::string::npos);
  EXPECT_EQ(wide.find("Left out"), std::string::npos);
  EXPECT_NE(wide.find("\nEliminated: data_instances=4,prefetch_batches=2, data_instances=4,prefetch_batches=4 were decided dearer "
                      "per sample than data_instances=1,prefetch_batches=4, the best at the round they left.\n"),
            std::string::npos)
      << wide;
  EXPECT_NE(wide.find("Best: data_instances=1,prefetch_batches=4 at 0.4307 USD per 1M samples, 95% CI [0.3947, 0.5015]"), std::string::npos)
      << wide;
  // The console run report: its prose, decisions and the sweep block all within 100 columns.
  const std::string console = to_console(report, {100, false});
  for (const auto& line : lines_of(console.substr(console.find("\nSweep of"))))
    EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(console.find("The lines against the baseline are pairwise: each at 95 % on its own"), std::string::npos) << console;
  EXPECT_EQ(sweep_table(std::nullopt, "USD", 100), "");
}

TEST(SweepReport, ConsoleMainTableFitsWithThePointsLongNames) {
  // The results named as a sweep's points are (35 characters), one with two notes: the
  // always-shown columns alone were 101 columns wide. The notes give way to a line under the table.
  RunReport report = sweep_run();
  ASSERT_EQ(report.results.size(), 3u);
  const char* names[] = {"data_instances=1,prefetch_batches=4", "data_instances=1,prefetch_batches=2",
                         "data_instances=4,prefetch_batches=2"};
  for (size_t i = 0; i < 3; ++i) report.results[i].configuration = names[i];
  report.results[1].partial = true;
  report.results[1].converged = false;
  report.results[1].status = ResultStatus::ok;
  const std::string console = to_console(report, {100, false});
  for (const auto& line : lines_of(console)) EXPECT_LE(line.size(), 100u) << line << "\n" << console;
  const std::vector<std::string> lines = lines_of(console);
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("configuration ", 0) == 0; });
  ASSERT_NE(header, lines.end()) << console;
  EXPECT_EQ(header->find("notes"), std::string::npos) << *header;
  // Every row keeps its full name; what the notes column said is under the table, row by row.
  for (size_t i = 0; i < 3; ++i) EXPECT_NE(console.find(std::string("\n") + names[i] + " "), std::string::npos) << names[i] << "\n" << console;
  const std::string unwrapped = std::regex_replace(console, std::regex("\n  "), " ");
  EXPECT_NE(unwrapped.find("Notes (their column left out at this width; --wide shows it): data_instances=1,prefetch_batches=2: "
                         "partial, unconverged"),
            std::string::npos)
      << unwrapped;
  // Wide enough, the notes stay in their column and are not repeated.
  const std::string wide = to_console(report, {160, false});
  EXPECT_EQ(wide.find("Notes (their column"), std::string::npos) << wide;
}

TEST(SweepReport, HtmlLeadsWithTheRaceAndSaysThePairwiseLinesAreNotSimultaneous) {
  const RunReport report = sweep_run();
  RunReportPage page;
  page.run = &report;
  page.source = "r.json";
  const std::string html = run_report_html(page);
  const size_t section = html.find("<section id=\"decisions\">");
  ASSERT_NE(section, std::string::npos);
  const size_t race = html.find("data-decision=\"sweep\">Sweep of mnist_heavy (4 points): best data_instances=1,prefetch_batches=4 at "
                                "0.4307 USD per 1M samples (95 % CI 0.3947 to 0.5015); equivalent to it within ±5 %: none; 2 "
                                "eliminated, 1 undecided.",
                                section);
  const size_t note = html.find("data-decision=\"pairwise-note\">The lines against the baseline are pairwise", section);
  const size_t pairwise = html.find("<p class=\"note\" data-decision=\"pairwise\">", section);
  ASSERT_NE(race, std::string::npos) << html.substr(section, 3000);
  ASSERT_NE(note, std::string::npos);
  ASSERT_NE(pairwise, std::string::npos);
  EXPECT_LT(race, note);
  EXPECT_LT(note, pairwise);
  EXPECT_EQ(html.find("<p class=\"decision\" data-decision=\"pairwise\">"), std::string::npos);

  // The dot chart: ticks fitted to the intervals (0.3947 to 1.09 USD), not from 0, and said so.
  const size_t chart = html.find("data-chart=\"sweep\"");
  ASSERT_NE(chart, std::string::npos);
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_NE(svg.find("(the axis does not start at 0)"), std::string::npos) << svg;
  std::vector<double> ticks;
  const std::regex tick("text-anchor=\"middle\">([0-9.]+)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) ticks.push_back(std::stod((*it)[1].str()));
  ASSERT_GE(ticks.size(), 2u) << svg;
  EXPECT_GT(ticks.front(), 0.3);
  EXPECT_LE(ticks.front(), 0.4);
  EXPECT_GE(ticks.back(), 1.0);

  // Without a sweep the decisions are the page's statement, as before.
  RunReport plain = report;
  plain.sweep.reset();
  page.run = &plain;
  const std::string before = run_report_html(page);
  EXPECT_NE(before.find("<p class=\"decision\" data-decision=\"pairwise\">"), std::string::npos);
  EXPECT_EQ(before.find("pairwise-note"), std::string::npos);
}

TEST(SweepReport, MarkdownWritesEveryIntervalAsLoCommaHi) {
  // docs/results.md writes an interval "[lo, hi]"; the run's table, the sweep's and the
  // comparison's all do too, never "[lo..hi]".
  const RunReport report = sweep_run();
  RunReportPage page;
  page.run = &report;
  page.source = "r.json";
  const std::string md = run_report_markdown(page);
  const std::regex dotted("\\[[-+0-9.]+\\.\\.[-+0-9.]+\\]"), comma("\\[[-+0-9.]+, [-+0-9.]+\\]");
  EXPECT_FALSE(std::regex_search(md, dotted)) << md;
  // The run's table: the ondemand row's median with its CI, as the sweep's rows write theirs.
  EXPECT_NE(md.find(" | 5.076 [4.771, 5.538] | "), std::string::npos) << md;
  EXPECT_NE(md.find(" | 0.4307 [0.3947, 0.5015] | "), std::string::npos) << md;
  size_t intervals = 0;
  for (std::sregex_iterator it(md.begin(), md.end(), comma), end; it != end; ++it) ++intervals;
  EXPECT_GE(intervals, 10u) << md;
}

TEST(SweepReport, MarkdownHasTheSweepTableSortedByCostWithVerdicts) {
  const RunReport report = sweep_run();
  RunReportPage page;
  page.run = &report;
  page.source = "r.json";
  const std::string md = run_report_markdown(page);
  const size_t at = md.find("### Sweep: data\\_instances × prefetch\\_batches\n");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string sweep = md.substr(at);
  EXPECT_NE(sweep.find("best `data_instances=1,prefetch_batches=4` at 0.4307 USD per 1M samples (95 % CI [0.3947, 0.5015])**; "
                       "equivalent to it within ±5 %: none."),
            std::string::npos)
      << sweep;
  EXPECT_NE(sweep.find("Measured 4.2 s of steps; the eliminations saved 2.4 s (36 %) against every point measuring every round."),
            std::string::npos)
      << sweep;
  const char* rows[] = {
      "| data_instances=1,prefetch_batches=4 | 0.4307 [0.3947, 0.5015] | 1 | **best** |  |\n",
      "| data_instances=1,prefetch_batches=2 | 0.4618 [0.4019, 0.7989] | [0.866, 1.328] | undecided | data_instances=1,prefetch_batches=4 |\n",
      "| data_instances=4,prefetch_batches=2 | 0.714 [0.6843, 0.862] | [1.522, 2.340] | eliminated after round 8 | "
      "data_instances=1,prefetch_batches=4 |\n",
      "| data_instances=4,prefetch_batches=4 | 0.7156 [0.648, 1.09] | [1.554, 2.301] | eliminated after round 8 | "
      "data_instances=1,prefetch_batches=4 |\n"};
  size_t last = 0;
  for (const char* row : rows) {
    const size_t found = sweep.find(row);
    ASSERT_NE(found, std::string::npos) << row << "\n" << sweep;
    EXPECT_GT(found, last);  // cheapest first
    last = found;
  }
  // The page leads with the race, then says the pairwise lines are pairwise.
  EXPECT_LT(md.find("**Sweep of mnist_heavy (4 points): best"), md.find("_The lines against the baseline are pairwise"));
  ASSERT_NE(md.find("\n- spot vs ondemand"), std::string::npos) << md;
  EXPECT_LT(md.find("_The lines against the baseline are pairwise"), md.find("\n- spot vs ondemand"));
  RunReport plain = report;
  plain.sweep.reset();
  page.run = &plain;
  EXPECT_EQ(run_report_markdown(page).find("### Sweep"), std::string::npos);
}

TEST(SweepReport, TheRecordReadsAndWritesBackEveryFieldAndNamesABadOne) {
  std::ifstream in(pperf::testing::source_dir() + "/tests/data/races/sweep_race.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["races"][0]["points"][1]["from_a_later_pperf"] = 7;  // kept, not lost
  const SweepRecord sweep = read_sweep(JsonView(doc, "r.json", "/sweep"));
  EXPECT_EQ(to_json(sweep), doc);
  ASSERT_EQ(sweep.races.size(), 1u);
  EXPECT_EQ(sweep.races[0].best_point()->configuration, "data_instances=1,prefetch_batches=4");
  EXPECT_FALSE(sweep.races[0].points[0].compared_with);
  EXPECT_EQ(sweep.races[0].points[2].left_after_round, 8);
  doc["races"][0]["points"][2].erase("verdict");
  try {
    read_sweep(JsonView(doc, "r.json", "/sweep"));
    ADD_FAILURE() << "a point without its verdict was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: /sweep/races/0/points/2/verdict"), std::string::npos) << e.what();
  }
}
