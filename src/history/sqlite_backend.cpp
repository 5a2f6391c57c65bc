// The embedded backend: one SQLite file, WAL, a 60 s busy timeout; the schema version in
// PRAGMA user_version.
#include <sqlite3.h>

#include <cctype>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "src/core/input_error.h"
#include "src/history/backend.h"
#include "src/history/history.h"

namespace pperf {

namespace {

// Each step takes the schema from version i to i + 1; user_version is set after it. Steps are
// only ever appended: a database made by an older pperf is migrated forward on open.
const char* const kMigrations[] = {
    // 0 -> 1: runs and their results.
    R"sql(
CREATE TABLE runs (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at       TEXT NOT NULL,
  started_at        TEXT NOT NULL,
  finished_at       TEXT,
  config_name       TEXT NOT NULL,
  config_path       TEXT NOT NULL,
  config_sha256     TEXT NOT NULL,
  git_sha           TEXT NOT NULL,
  tool_version      TEXT NOT NULL,
  command           TEXT NOT NULL,
  status            TEXT NOT NULL,
  host_fingerprint  TEXT NOT NULL,
  hostname          TEXT NOT NULL,
  cpu_model         TEXT NOT NULL,
  logical_cpus      INTEGER,
  pricing_table     TEXT NOT NULL,
  pricing_retrieved TEXT NOT NULL,
  currency          TEXT NOT NULL,
  results_sha256    TEXT NOT NULL UNIQUE,
  results_json      TEXT NOT NULL
);
CREATE INDEX runs_by_config ON runs(config_name, host_fingerprint, started_at);
CREATE TABLE results (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,
  workload        TEXT NOT NULL,
  preset          TEXT NOT NULL,
  batch_size      INTEGER NOT NULL,
  configuration   TEXT NOT NULL,
  baseline        INTEGER NOT NULL,
  measured        INTEGER NOT NULL,
  status          TEXT NOT NULL,
  median_ms       REAL,
  ci95_lo_ms      REAL,
  ci95_hi_ms      REAL,
  n               INTEGER NOT NULL,
  usd_per_hour    REAL,
  usd_per_step    REAL,
  samples_per_s   REAL,
  improvement_pct REAL,
  PRIMARY KEY (run_id, idx)
);
CREATE INDEX results_by_pair ON results(workload, preset, batch_size, configuration);
)sql",
    // 1 -> 2: change points, detected or marked by hand.
    R"sql(
CREATE TABLE change_points (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  config_name      TEXT NOT NULL,
  host_fingerprint TEXT NOT NULL,
  workload         TEXT NOT NULL,
  preset           TEXT NOT NULL,
  batch_size       INTEGER NOT NULL,
  configuration    TEXT NOT NULL,
  metric           TEXT NOT NULL,
  run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  before           REAL,
  after            REAL,
  source           TEXT NOT NULL CHECK (source IN ('detected', 'marked')),
  note             TEXT NOT NULL DEFAULT '',
  created_at       TEXT NOT NULL
);
CREATE INDEX change_points_by_config ON change_points(config_name, host_fingerprint);
)sql",
    // 2 -> 3: the price table's identity per run (with pricing_table: name, file sha256, publication date).
    R"sql(
ALTER TABLE runs ADD COLUMN pricing_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN pricing_published TEXT NOT NULL DEFAULT '';
)sql",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) + 1 == kHistorySchemaVersion, "one migration per schema version");

// 3 -> 4: what a dashboard plots per run and pair (mean with its CI, USD per step's CI, the
// decision), filled in from the stored files for runs recorded before; the dashboard views.
const std::string kMigrationTo4 = std::string(R"sql(
ALTER TABLE results ADD COLUMN mean_ms REAL;
ALTER TABLE results ADD COLUMN mean_ci95_lo_ms REAL;
ALTER TABLE results ADD COLUMN mean_ci95_hi_ms REAL;
ALTER TABLE results ADD COLUMN usd_per_step_ci95_lo REAL;
ALTER TABLE results ADD COLUMN usd_per_step_ci95_hi REAL;
ALTER TABLE results ADD COLUMN decision TEXT;
UPDATE results SET (mean_ms, mean_ci95_lo_ms, mean_ci95_hi_ms, usd_per_step_ci95_lo, usd_per_step_ci95_hi, decision) =
  (SELECT json_extract(x, '$.step_time_ms.mean'), json_extract(x, '$.step_time_ms.mean_ci95[0]'),
          json_extract(x, '$.step_time_ms.mean_ci95[1]'), json_extract(x, '$.cost.usd_per_step_ci95[0]'),
          json_extract(x, '$.cost.usd_per_step_ci95[1]'), json_extract(x, '$.decision.verdict')
   FROM (SELECT json_extract(runs.results_json, '$.results[' || results.idx || ']') AS x FROM runs WHERE runs.id = results.run_id));
)sql") + history_views_sql("CAST(strftime('%s', runs.started_at) AS INTEGER)");

/// `$N` placeholders (History's dialect) as SQLite's `?N`.
std::string sqlite_placeholders(const std::string& sql) {
  std::string out = sql;
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i] == '$' && std::isdigit(static_cast<unsigned char>(out[i + 1]))) out[i] = '?';
  return out;
}

class SqliteBackend final : public HistoryBackend {
 public:
  SqliteBackend(const std::string& path, bool create) : path_(path) {
    namespace fs = std::filesystem;
    if (!create && !fs::exists(path))
      throw InputError(path, "", "no history database here (record a run first: `pperf history record` or `pperf run --history`)");
    if (create && fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "cannot open";
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(path, "", "cannot open the history database: " + message);
    }
    sqlite3_busy_timeout(db_, 60000);
    try {
      exec("PRAGMA foreign_keys = ON");
      // Reading the header: a file that is not SQLite fails here.
      query("SELECT count(*) FROM sqlite_master", {});
    } catch (const std::runtime_error&) {
      const std::string message = sqlite3_errmsg(db_);
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(path, "", "not a pperf history database: " + message);
    }
  }
  ~SqliteBackend() override {
    if (db_) sqlite3_close(db_);
  }

  const std::string& name() const override { return path_; }
  const char* kind() const override { return "sqlite"; }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlParam>& params) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sqlite_placeholders(sql).c_str(), -1, &stmt, nullptr) != SQLITE_OK) fail("prepare");
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      int rc = SQLITE_OK;
      if (const auto* s = std::get_if<std::string>(&params[i]))
        rc = sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      else if (const auto* n = std::get_if<int64_t>(&params[i]))
        rc = sqlite3_bind_int64(stmt, at, *n);
      else if (const auto* d = std::get_if<double>(&params[i]))
        rc = sqlite3_bind_double(stmt, at, *d);
      else
        rc = sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) fail("bind");
    }
    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail("step");
      SqlRow row;
      const int n = sqlite3_column_count(stmt);
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_NULL: row.cells.emplace_back(std::monostate{}); break;
          case SQLITE_INTEGER: row.cells.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c))); break;
          case SQLITE_FLOAT: row.cells.emplace_back(sqlite3_column_double(stmt, c)); break;
          default: {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
            row.cells.emplace_back(std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
          }
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void exec(const std::string& sql) override {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : sqlite3_errmsg(db_);
      sqlite3_free(error);
      throw std::runtime_error(path_ + ": " + message);
    }
  }
  void begin(bool writer) override { exec(writer ? "BEGIN IMMEDIATE" : "BEGIN"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

  int schema_version() override {
    const int version = static_cast<int>(query("PRAGMA user_version", {}).at(0).integer(0));
    if (version == 0 && !empty())
      throw InputError(path_, "", "not a pperf history database (it has tables but no pperf schema version)");
    return version;
  }
  void set_schema_version(int version) override { exec(fmt::format("PRAGMA user_version = {}", version)); }
  void lock_schema() override {}  // BEGIN IMMEDIATE already holds the write lock
  std::string migration(int from) const override { return from == 3 ? kMigrationTo4 : kMigrations[from]; }
  bool empty() override { return query("SELECT count(*) FROM sqlite_master", {}).at(0).integer(0) == 0; }

  /// WAL: readers never block the writer and a writer never blocks readers; a second writer
  /// waits (busy timeout) instead of failing. Set once the file is known to be pperf's.
  void wal() {
    exec("PRAGMA journal_mode = WAL");
    exec("PRAGMA synchronous = NORMAL");
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
  }
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryBackend> open_sqlite_backend(const std::string& path, bool create) {
  auto backend = std::make_unique<SqliteBackend>(path, create);
  // Refuses a database that is not pperf's before WAL touches it; one of a newer schema is
  // left as it is too (History refuses it).
  if (backend->schema_version() <= kHistorySchemaVersion) backend->wal();
  return backend;
}

}  // namespace pperf
