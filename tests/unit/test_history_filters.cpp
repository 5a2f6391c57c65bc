// History's SQL filters with interrupted and failed runs among complete ones (issue 28): which
// runs feed change detection (series) and `--against-history` (list, complete only), in which
// order, and the result columns dashboards read (docs/history.md).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "src/core/results_json.h"
#include "src/history/history.h"
#include "compare_fixtures.h"
#include "test_helpers.h"

using namespace pperf;
using namespace pperf::testing;

namespace {

/// A night of config "nightly": pairs a (10 ms x level) and b (20 ms x level), 20 samples each.
RunReport night(const std::string& started_at, double level, RunStatus status) {
  RunReport r = run_report({measured_result("a", scaled(lognormal_samples(20, 10, 0.02, 1), level), 3.6),
                            measured_result("b", scaled(lognormal_samples(20, 20, 0.02, 2), level), 7.2)},
                           started_at);
  r.config_name = "nightly";
  r.status = status;
  return r;
}

struct Nights {
  TempDir dir;
  std::unique_ptr<History> h;
  std::string fingerprint;
  RunReport complete_20, interrupted_21, failed_22, complete_19, complete_23;
  int64_t id_20 = 0, id_21 = 0, id_22 = 0, id_19 = 0, id_23 = 0;
  Nights()
      : complete_20(night("2026-11-20T01:00:00Z", 1.0, RunStatus::complete)),
        interrupted_21(night("2026-11-21T01:00:00Z", 2.0, RunStatus::interrupted)),
        failed_22(night("2026-11-22T01:00:00Z", 3.0, RunStatus::failed)),
        complete_19(night("2026-11-19T01:00:00Z", 1.1, RunStatus::complete)),
        complete_23(night("2026-11-23T01:00:00Z", 1.2, RunStatus::complete)) {
    // The 23rd's pair b failed after measuring some steps: its row has a median but is not ok.
    complete_23.results[1].status = ResultStatus::failed;
    complete_23.results[1].reason = "out of memory";
    h = std::make_unique<History>(dir.path() + "/h.sqlite", History::Mode::create);
    // Recorded out of start order: the 19th last.
    id_20 = h->record(results_file_text(complete_20), complete_20).id;
    id_21 = h->record(results_file_text(interrupted_21), interrupted_21).id;
    id_22 = h->record(results_file_text(failed_22), failed_22).id;
    id_23 = h->record(results_file_text(complete_23), complete_23).id;
    id_19 = h->record(results_file_text(complete_19), complete_19).id;
    fingerprint = host_fingerprint(complete_20.host);
  }
};

std::vector<int64_t> ids(const std::vector<HistoryRun>& runs) {
  std::vector<int64_t> out;
  for (const auto& r : runs) out.push_back(r.id);
  return out;
}

}  // namespace

TEST(HistoryFilters, ListIsByStartTimeAndCompleteOnlyDropsInterruptedAndFailed) {
  Nights n;
  EXPECT_EQ(ids(n.h->list(std::nullopt, std::nullopt)), (std::vector<int64_t>{n.id_19, n.id_20, n.id_21, n.id_22, n.id_23}));
  // What --against-history and report read: complete runs only, oldest first.
  EXPECT_EQ(ids(n.h->list(std::string("nightly"), std::nullopt, n.fingerprint, true)),
            (std::vector<int64_t>{n.id_19, n.id_20, n.id_23}));
  EXPECT_EQ(ids(n.h->list(std::string("nightly"), 2, n.fingerprint, true)), (std::vector<int64_t>{n.id_20, n.id_23}));
  EXPECT_EQ(ids(n.h->list(std::string("nightly"), 2, n.fingerprint, false)), (std::vector<int64_t>{n.id_22, n.id_23}));
  EXPECT_TRUE(n.h->list(std::string("nightly"), std::nullopt, "000000000000", true).empty());
  const auto runs = n.h->list(std::nullopt, std::nullopt);
  EXPECT_EQ(runs[2].status, "interrupted");
  EXPECT_EQ(runs[3].status, "failed");
}

TEST(HistoryFilters, SeriesTakeOkResultsOfCompleteRunsInStartOrder) {
  Nights n;
  const auto series = n.h->series("nightly", n.fingerprint);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].first.configuration, "a");
  EXPECT_EQ(series[1].first.configuration, "b");
  auto run_ids = [](const std::vector<SeriesPoint>& points) {
    std::vector<int64_t> out;
    for (const auto& p : points) out.push_back(p.run_id);
    return out;
  };
  EXPECT_EQ(run_ids(series[0].second), (std::vector<int64_t>{n.id_19, n.id_20, n.id_23}));
  EXPECT_EQ(run_ids(series[1].second), (std::vector<int64_t>{n.id_19, n.id_20})) << "b failed on the 23rd";
  EXPECT_DOUBLE_EQ(series[0].second[0].median_ms, n.complete_19.results[0].step->median_ms);
  EXPECT_DOUBLE_EQ(series[0].second[2].median_ms, n.complete_23.results[0].step->median_ms);
  EXPECT_DOUBLE_EQ(*series[1].second[1].usd_per_step, n.complete_20.results[1].cost->usd_per_step);
}

// The columns of `results` a dashboard reads, row by row (docs/history.md's query).
TEST(HistoryFilters, ResultColumnsHoldWhatTheirNamesSay) {
  Nights n;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((n.dir.path() + "/h.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT configuration, status, median_ms, n, usd_per_hour, usd_per_step FROM results "
                               "WHERE run_id = ? ORDER BY idx",
                               -1, &s, nullptr),
            SQLITE_OK);
  sqlite3_bind_int64(s, 1, n.id_23);
  const RunReport& r = n.complete_23;
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))), r.results[i].configuration);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 1))), i == 0 ? "ok" : "failed");
    EXPECT_DOUBLE_EQ(sqlite3_column_double(s, 2), r.results[i].step->median_ms);
    EXPECT_EQ(sqlite3_column_int64(s, 3), 20);
    EXPECT_DOUBLE_EQ(sqlite3_column_double(s, 4), i == 0 ? 3.6 : 7.2);
    EXPECT_DOUBLE_EQ(sqlite3_column_double(s, 5), r.results[i].cost->usd_per_step);
  }
  EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
  sqlite3_finalize(s);
  sqlite3_close(db);
}
