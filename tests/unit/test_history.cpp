#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "compare_fixtures.h"
#include "test_helpers.h"

using namespace pperf;
using namespace pperf::testing;

namespace {

RunReport night(const std::string& started_at, double level, const std::string& config = "tiny-run") {
  RunReport r = run_report({measured_result("a", scaled(lognormal_samples(20, 10, 0.02, 1), level)),
                            measured_result("b", scaled(lognormal_samples(20, 20, 0.02, 2), level))},
                           started_at);
  r.config_name = config;
  return r;
}

int64_t count_rows(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &s, nullptr);
  int64_t n = -1;
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

}  // namespace

TEST(History, RecordsRunsAndGivesTheTextBackExactly) {
  TempDir dir;
  const std::string path = dir.path() + "/sub/history.sqlite";
  History h(path, History::Mode::create);
  EXPECT_EQ(h.schema_version(), kHistorySchemaVersion);
  const RunReport first = night("2026-11-20T01:00:00Z", 1.0), second = night("2026-11-21T01:00:00Z", 1.0);
  const std::string text1 = results_file_text(first), text2 = results_file_text(second) + "  ";  // any bytes
  const auto r1 = h.record(text1, first);
  const auto r2 = h.record(text2, second);
  EXPECT_FALSE(r1.already);
  EXPECT_EQ(r2.id, r1.id + 1);
  EXPECT_EQ(*h.results_text(r1.id), text1);
  EXPECT_EQ(*h.results_text(r2.id), text2);
  EXPECT_FALSE(h.results_text(99));
  // The same text again: the first id, nothing added.
  const auto again = h.record(text1, first);
  EXPECT_TRUE(again.already);
  EXPECT_EQ(again.id, r1.id);
  EXPECT_EQ(count_rows(path, "runs"), 2);
  EXPECT_EQ(count_rows(path, "results"), 4);
  const auto runs = h.list(std::nullopt, std::nullopt);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].config_name, "tiny-run");
  EXPECT_EQ(runs[0].results, 2);
  EXPECT_EQ(runs[0].status, "complete");
  EXPECT_EQ(runs[0].host_fingerprint, host_fingerprint(first.host));
  EXPECT_EQ(h.list(std::nullopt, 1).at(0).id, r2.id);  // --last keeps the newest
  EXPECT_TRUE(h.list(std::string("other"), std::nullopt).empty());
}

TEST(History, ListsByStartTimeNotByRecordingOrder) {
  TempDir dir;
  History h(dir.path() + "/h.sqlite", History::Mode::create);
  const RunReport late = night("2026-11-22T01:00:00Z", 1.0), early = night("2026-11-20T01:00:00Z", 1.0);
  h.record(results_file_text(late), late);
  h.record(results_file_text(early), early);
  const auto runs = h.list(std::nullopt, std::nullopt);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].started_at, "2026-11-20T01:00:00Z");
  const auto series = h.series("tiny-run", host_fingerprint(late.host));
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].first.configuration, "a");
  ASSERT_EQ(series[0].second.size(), 2u);
  EXPECT_EQ(series[0].second[0].started_at, "2026-11-20T01:00:00Z");
  EXPECT_DOUBLE_EQ(series[0].second[0].median_ms, early.results[0].step->median_ms);
}

TEST(History, FingerprintFollowsTheFactsThatMatter) {
  const RunReport r = night("2026-11-20T01:00:00Z", 1.0);
  nlohmann::json other_name = r.host, other_cpu = r.host, other_blas = r.host;
  other_name["hostname"] = "runner-7";
  other_cpu["cpu_model"] = "AMD EPYC";
  other_blas["blas"]["library"] = "reference (netlib)";
  EXPECT_EQ(host_fingerprint(r.host), host_fingerprint(other_name));
  EXPECT_NE(host_fingerprint(r.host), host_fingerprint(other_cpu));
  EXPECT_NE(host_fingerprint(r.host), host_fingerprint(other_blas));
  EXPECT_EQ(host_fingerprint(r.host).size(), 12u);
}

TEST(History, MigratesAnOlderSchemaAndKeepsItsRuns) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  const RunReport r = night("2026-11-20T01:00:00Z", 1.0);
  {
    History v1(path, History::Mode::create, 1);
    EXPECT_EQ(v1.schema_version(), 1);
    v1.record(results_file_text(r), r);
  }
  EXPECT_EQ(count_rows(path, "change_points"), -1);  // no such table yet
  History h(path, History::Mode::read);
  EXPECT_EQ(h.schema_version(), kHistorySchemaVersion);
  EXPECT_EQ(h.list(std::nullopt, std::nullopt).size(), 1u);
  EXPECT_EQ(h.list(std::nullopt, std::nullopt)[0].pricing_sha256, "") << "recorded before version 3";
  EXPECT_EQ(count_rows(path, "change_points"), 0);
}

TEST(History, RefusesWhatItCannotRead) {
  TempDir dir;
  EXPECT_THROW(History(dir.path() + "/none.sqlite", History::Mode::read), InputError);
  const std::string text = dir.write("text.sqlite", "this is not a database, just some words in a file.\n");
  try {
    History h(text, History::Mode::read);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), text);
    EXPECT_NE(std::string(e.what()).find("not a pperf history database"), std::string::npos) << e.what();
  }
  // Another program's SQLite file.
  const std::string foreign = dir.path() + "/foreign.sqlite";
  sqlite3* db = nullptr;
  sqlite3_open(foreign.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_THROW(History(foreign, History::Mode::create), InputError);
  // A newer pperf's database.
  const std::string newer = dir.path() + "/newer.sqlite";
  { History h(newer, History::Mode::create); }
  sqlite3_open(newer.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    History h(newer, History::Mode::read);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("history schema version 99 is newer than this pperf reads (4)"), std::string::npos)
        << e.what();
  }
}

TEST(History, ChangePointsDetectedAreReplacedMarkedOnesStay) {
  TempDir dir;
  History h(dir.path() + "/h.sqlite", History::Mode::create);
  const RunReport a = night("2026-11-20T01:00:00Z", 1.0), b = night("2026-11-21T01:00:00Z", 1.2);
  h.record(results_file_text(a), a);
  const int64_t id = h.record(results_file_text(b), b).id;
  const std::string fp = host_fingerprint(a.host);
  StoredChangePoint c;
  c.run_id = id;
  c.metric = "median_ms";
  c.pair = pair_key(a.results[0]);
  c.before = 10;
  c.after = 12;
  h.store_detected("tiny-run", fp, {c});
  h.store_detected("tiny-run", fp, {c});  // replaces, does not add
  StoredChangePoint m = c;
  m.config_name = "tiny-run";
  m.host_fingerprint = fp;
  m.note = "new BLAS";
  h.mark(m);
  const auto all = h.change_points("tiny-run", fp);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].source, "detected");
  EXPECT_EQ(*all[0].after, 12);
  EXPECT_EQ(all[1].source, "marked");
  EXPECT_EQ(all[1].note, "new BLAS");
  h.store_detected("tiny-run", fp, {});
  ASSERT_EQ(h.change_points("tiny-run", std::nullopt).size(), 1u);
}

TEST(History, PostgresUrisAreNamedWithoutTheirPassword) {
  EXPECT_TRUE(is_postgres_uri("postgresql://u@h/db"));
  EXPECT_TRUE(is_postgres_uri("postgres://h/db"));
  EXPECT_FALSE(is_postgres_uri("results/postgresql.sqlite"));
  EXPECT_EQ(redact_postgres_uri("postgresql://u:s3cret@db.example:5433/hist?sslmode=require&password=other"),
            "postgresql://u@db.example:5433/hist");
  EXPECT_EQ(redact_postgres_uri("postgres://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(redact_postgres_uri("postgresql://h:5432/db"), "postgresql://h:5432/db");
  EXPECT_EQ(redact_postgres_uri("postgresql://u:p%40ss@h/db"), "postgresql://u@h/db");
}
