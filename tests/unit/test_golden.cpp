// Golden outputs: every run writer (reports/writer.h) formats one fixed sample run, and the text
// must equal its checked-in file under tests/data/golden, so a change of output is a reviewed
// diff. After an intended change: PPERF_UPDATE_GOLDEN=1 build/pperf_unit_tests --gtest_filter='Golden.*'
// rewrites the files (docs/results.md, "Golden outputs"); review them with git diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "test_helpers.h"
#include "src/core/atomic_file.h"
#include "src/core/results_json.h"
#include "reports/columns.h"
#include "reports/formats.h"
#include "reports/text.h"
#include "reports/writer.h"
#include "golden.h"

using namespace pperf;
using pperf::testing::expect_golden;

namespace {

/// The tiny run's three measured results, one with its memory, one unconverged and partial, and a failed one
/// whose name and reason need quoting in CSV, Markdown and HTML.
RunReport sample_run() {
  RunReport run = read_results_file(pperf::testing::source_dir() + "/tests/data/results/run_tiny.json");
  run.results[1].converged = false;
  run.results[1].partial = true;
  // A trainer and a data worker: the peak column shows their sum, 0.30 GiB.
  run.results[0].memory = MemoryReport{int64_t{2} << 30, "cgroup v1", int64_t{250} << 20,
                                       {{"trainer", 101, int64_t{200} << 20}, {"data worker 1", 102, int64_t{107} << 20}}, {}};
  Result failed = run.results[2];
  failed.configuration = "odd | \"name\" <b>";
  failed.baseline = false;
  failed.status = ResultStatus::failed;
  failed.reason = "data worker 127.0.0.1:5555 closed the connection | \"quoted\"";
  failed.measurement.reset();
  failed.step.reset();
  failed.spread.reset();
  failed.samples_per_s.reset();
  failed.data_wait_fraction.reset();
  failed.cost.reset();
  failed.comparison = {};
  failed.mfu.reset();
  failed.execution.reset();
  failed.bottleneck.reset();
  run.results.push_back(failed);
  return run;
}


size_t widest_line(const std::string& text) {
  std::stringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}
}  // namespace

TEST(Golden, EveryWriterMatchesItsFile) {
  const RunReport run = sample_run();
  RunReportPage page;
  page.run = &run;
  page.source = "tests/data/results/run_tiny.json";
  for (const RunWriter& writer : run_writers()) {
    if (writer.name == "console") continue;  // at fixed widths below
    SCOPED_TRACE(writer.name);
    expect_golden("run-" + writer.name + "." + writer.extension, writer.write(page));
  }
}

TEST(Golden, ConsoleAtFixedWidthsNarrowAndWide) {
  const RunReport run = sample_run();
  RunReportPage page;
  page.run = &run;
  const RunWriter& console = *find_writer(run_writers(), "console");
  for (const size_t width : {80, 100}) {
    page.console = {width, false};
    const std::string text = console.write(page);
    expect_golden("run-console-" + std::to_string(width) + ".txt", text);
    EXPECT_LE(widest_line(text), width) << text;  // every line, the table's and the prose's
  }
  page.console = {100, true};
  const std::string wide = console.write(page);
  expect_golden("run-console-wide.txt", wide);
  EXPECT_GT(widest_line(wide), 100u);
}

TEST(Console, ItemLogLinesFitTheTerminal) {
  Result r = sample_run().results[0];
  r.measurement->stop = {StopReason::target_rel_ci, "target_rel_ci (mean ±0.9 %, median ±0.8 %) <= 1.0 %"};
  for (const size_t width : {80, 100}) {
    const std::string done = item_finished_line("2026-11-23T22:48:36Z", r, width);
    EXPECT_LE(widest_line(done), width) << done;
    EXPECT_NE(done.find("\n  "), std::string::npos) << "a long line continues indented: " << done;
    const std::string started = item_started_line("2026-11-23T22:48:36Z", "resnet50_augment", "cifar", "heterogeneous_spot", 3, 12, width);
    EXPECT_LE(widest_line(started), width) << started;
  }
  // Without a width (a log file): one line each, as before.
  const std::string one = item_finished_line("2026-11-23T22:48:36Z", r, 0);
  EXPECT_EQ(one.find('\n'), one.size() - 1);
  EXPECT_NE(one.find("over 6 steps until target_rel_ci (mean"), std::string::npos) << one;
  // The stop's own parentheses are not nested in the line's ("(decided (after 8 rounds))").
  r.measurement->stop = {StopReason::decided, "decided (after 8 rounds)"};
  const std::string decided = item_finished_line("2026-11-23T22:48:36Z", r, 0);
  EXPECT_NE(decided.find("over 6 steps until decided (after 8 rounds)\n"), std::string::npos) << decided;
  EXPECT_EQ(decided.find("))"), std::string::npos) << decided;
}

TEST(Columns, EveryWriterShowsEveryFigure) {
  // A figure shown to people is in CSV, Markdown and HTML alike (the console picks by width).
  for (const Column& c : result_columns()) {
    if (c.key == "workload" || c.key == "preset" || c.key == "batch_size" || c.key == "workload_label" ||
        c.key == "baseline" || c.key == "measured" || c.key == "status" || c.key == "reason")
      continue;  // how each writer names a row (a label, a marker, a failed cell) differs on purpose
    EXPECT_EQ(c.shown & kEveryFile, kEveryFile) << c.key;
    EXPECT_NE(c.console, kConsoleNever) << c.key;
  }
}

TEST(Writers, NamesAreUniqueAndFound) {
  std::set<std::string> names;
  for (const auto& w : run_writers()) {
    EXPECT_TRUE(names.insert(w.name).second) << w.name;
    EXPECT_EQ(find_writer(run_writers(), w.name), &w);
  }
  EXPECT_EQ(find_writer(run_writers(), "gbnch"), nullptr);
}
