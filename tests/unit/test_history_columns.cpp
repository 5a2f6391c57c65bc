// What dashboards see (issue 45): every column pperf writes to the history database, read back
// through plain SQL on the file and held against the results file it was recorded from (the
// file's JSON, not pperf's reader). A column added without a check here fails the suite, and so
// does one written from the wrong figure (ci95 lo and hi swapped passed every other test).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "test_helpers.h"

using namespace pperf;
using nlohmann::json;

namespace {

/// Every row of `sql` as column name -> value (SQL NULL as JSON null).
std::vector<std::map<std::string, json>> query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::map<std::string, json>> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::map<std::string, json> row;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      json v;
      switch (sqlite3_column_type(s, i)) {
        case SQLITE_INTEGER: v = static_cast<int64_t>(sqlite3_column_int64(s, i)); break;
        case SQLITE_FLOAT: v = sqlite3_column_double(s, i); break;
        case SQLITE_TEXT: v = std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, i))); break;
        default: v = nullptr; break;
      }
      row[sqlite3_column_name(s, i)] = v;
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

using Expectations = std::map<std::string, std::function<json()>>;

/// Each column of `row` equals its expectation, and there is one for every column (and no other).
void expect_columns(const std::map<std::string, json>& row, const Expectations& expected, const std::string& where) {
  std::set<std::string> columns, checked;
  for (const auto& [name, value] : row) columns.insert(name);
  for (const auto& [name, value] : expected) checked.insert(name);
  EXPECT_EQ(columns, checked) << where << ": a column without a check here (or a check without its column)";
  for (const auto& [name, value] : row) {
    const auto e = expected.find(name);
    if (e != expected.end()) EXPECT_EQ(value, e->second()) << where << " column " << name;
  }
}

/// The results files a dashboard would get: the golden ones, and one with a failed result and
/// a null interval (so NULL columns are held against the file too).
std::vector<std::pair<std::string, std::string>> results_files(const pperf::testing::TempDir& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& e : std::filesystem::directory_iterator(pperf::testing::source_dir() + "/tests/data/results"))
    if (e.path().extension() == ".json") files.emplace_back(e.path().string(), read_text_file(e.path().string()));
  std::sort(files.begin(), files.end());
  json failed = json::parse(files.back().second);
  failed["started_at"] = "2026-11-23T01:00:00Z";
  failed["finished_at"] = nullptr;
  failed["status"] = "interrupted";
  failed["pricing"]["published"] = "2026-11-01";
  failed["pricing"]["sha256"] = std::string(64, 'a');
  json& r0 = failed["results"][0];
  r0["status"] = "failed";
  r0["reason"] = "the measuring process was killed by signal 9 without a result";
  for (const char* key : {"step_time_ms", "throughput", "stop_reason", "cost", "improvement_pct", "measurement"})
    r0[key] = nullptr;
  r0.erase("measurement");
  json& r1 = failed["results"][1];
  r1["step_time_ms"]["ci95"] = nullptr;
  const std::string text = failed.dump(2) + "\n";
  files.emplace_back(dir.write("failed.json", text), text);
  return files;
}
}  // namespace

TEST(HistoryColumns, EveryColumnReadsBackAsTheResultsFileSaysIncludingIntervalOrder) {
  pperf::testing::TempDir dir;
  const std::string db = dir.path() + "/history.sqlite";
  History h(db, History::Mode::create);
  for (const auto& entry : results_files(dir)) {
    const std::string& path = entry.first;  // named, not bound: lambdas below capture them
    const std::string& text = entry.second;
    const RunReport report = results_from_json(json::parse(text), path);
    const json file = json::parse(text);
    const History::Recorded recorded = h.record(text, report);
    const auto runs = query(db, "SELECT * FROM runs WHERE id = " + std::to_string(recorded.id));
    ASSERT_EQ(runs.size(), 1u) << path;
    const json& host = file["host"];
    const json& pricing = file["pricing"];
    const Expectations run_columns = {
        {"id", [&] { return json(recorded.id); }},
        // When it was recorded: now, as the results file writes times (UTC, seconds, Z).
        {"recorded_at", [&] { return runs[0].at("recorded_at").get<std::string>().size() == 20 ? runs[0].at("recorded_at") : json(); }},
        {"started_at", [&] { return file["started_at"]; }},
        {"finished_at", [&] { return file["finished_at"]; }},
        {"config_name", [&] { return file["config"]["name"]; }},
        {"config_path", [&] { return file["config"]["path"]; }},
        {"config_sha256", [&] { return file["config"]["sha256"]; }},
        {"git_sha", [&] { return file["tool"]["git_sha"]; }},
        {"tool_version", [&] { return file["tool"]["version"]; }},
        {"command", [&] { return file["command"]; }},
        {"status", [&] { return file["status"]; }},
        {"host_fingerprint", [&] { return json(host_fingerprint(host)); }},
        {"hostname", [&] { return host["hostname"]; }},
        {"cpu_model", [&] { return host["cpu_model"]; }},
        {"logical_cpus", [&] { return host["logical_cpus"]; }},
        {"pricing_table", [&] { return pricing["table"]; }},
        {"pricing_retrieved", [&] { return pricing["retrieved"]; }},
        {"currency", [&] { return pricing["currency"]; }},
        {"results_sha256", [&] { return json(sha256_hex(text)); }},
        {"results_json", [&] { return json(text); }},
        {"pricing_sha256", [&] { return json(pricing.value("sha256", "")); }},
        {"pricing_published", [&] { return pricing.contains("published") ? pricing["published"] : json(""); }},
    };
    expect_columns(runs[0], run_columns, path);

    const auto rows = query(db, "SELECT * FROM results WHERE run_id = " + std::to_string(recorded.id) + " ORDER BY idx");
    ASSERT_EQ(rows.size(), file["results"].size()) << path;
    for (size_t i = 0; i < rows.size(); ++i) {
      const json& r = file["results"][i];
      const json& step = r["step_time_ms"];
      const auto step_figure = [&](const char* key) { return step.is_null() ? json(nullptr) : step[key]; };
      const auto ci_end = [&](int end) { return step.is_null() || step["ci95"].is_null() ? json(nullptr) : step["ci95"][end]; };
      const auto usd_ci_end = [&](int end) {
        const json& cost = r["cost"];
        return cost.is_null() || !cost.contains("usd_per_step_ci95") || cost["usd_per_step_ci95"].is_null() ? json(nullptr)
                                                                                                            : cost["usd_per_step_ci95"][end];
      };
      const Expectations result_columns = {
          {"run_id", [&] { return json(recorded.id); }},
          {"idx", [&] { return json(static_cast<int64_t>(i)); }},
          {"workload", [&] { return r["workload"]; }},
          {"preset", [&] { return r["preset"]; }},
          {"batch_size", [&] { return r["batch_size"]; }},
          {"configuration", [&] { return r["configuration"]; }},
          {"baseline", [&] { return json(r["baseline"].get<bool>() ? 1 : 0); }},
          {"measured", [&] { return json(r["measured"].get<bool>() ? 1 : 0); }},
          {"status", [&] { return r["status"]; }},
          {"median_ms", [&] { return step_figure("median"); }},
          {"ci95_lo_ms", [&] { return ci_end(0); }},
          {"ci95_hi_ms", [&] { return ci_end(1); }},
          {"n", [&] { return json(r.contains("measurement") ? step["samples"].size() : 0); }},
          {"usd_per_hour", [&] { return r["cost"].is_null() ? json(nullptr) : r["cost"]["usd_per_hour"]; }},
          {"usd_per_step", [&] { return r["cost"].is_null() ? json(nullptr) : r["cost"]["usd_per_step"]; }},
          {"samples_per_s", [&] { return r["throughput"].is_null() ? json(nullptr) : r["throughput"]["samples_per_s"]; }},
          {"improvement_pct", [&] { return r["improvement_pct"]; }},
          // Schema 4: what a dashboard draws beside the median.
          {"mean_ms", [&] { return step_figure("mean"); }},
          {"mean_ci95_lo_ms", [&] { return step.is_null() || !step.contains("mean_ci95") || step["mean_ci95"].is_null() ? json(nullptr) : step["mean_ci95"][0]; }},
          {"mean_ci95_hi_ms", [&] { return step.is_null() || !step.contains("mean_ci95") || step["mean_ci95"].is_null() ? json(nullptr) : step["mean_ci95"][1]; }},
          {"usd_per_step_ci95_lo", [&] { return usd_ci_end(0); }},
          {"usd_per_step_ci95_hi", [&] { return usd_ci_end(1); }},
          {"decision", [&] { return r.contains("decision") && !r["decision"].is_null() ? r["decision"]["verdict"] : json(nullptr); }},
      };
      const std::string where = path + " result " + std::to_string(i);
      expect_columns(rows[i], result_columns, where);
      // What a dashboard draws as an error bar: lo <= median <= hi, straight from SQL.
      if (!rows[i].at("ci95_lo_ms").is_null()) {
        EXPECT_LT(rows[i].at("ci95_lo_ms").get<double>(), rows[i].at("median_ms").get<double>()) << where;
        EXPECT_LT(rows[i].at("median_ms").get<double>(), rows[i].at("ci95_hi_ms").get<double>()) << where;
      }
    }
  }
  // The files cover what the checks mean to: a measured interval, a null one, a failed result.
  EXPECT_FALSE(query(db, "SELECT 1 FROM results WHERE ci95_lo_ms IS NOT NULL").empty());
  EXPECT_FALSE(query(db, "SELECT 1 FROM results WHERE ci95_lo_ms IS NULL AND median_ms IS NOT NULL").empty());
  EXPECT_FALSE(query(db, "SELECT 1 FROM results WHERE status = 'failed' AND median_ms IS NULL").empty());
  EXPECT_FALSE(query(db, "SELECT 1 FROM results WHERE improvement_pct IS NOT NULL").empty());
}
