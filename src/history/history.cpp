#include "src/history/history.h"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <algorithm>
#include <map>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"

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
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == kHistorySchemaVersion, "one migration per schema version");


/// A prepared statement that finalizes itself; errors name the database.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)), *this; }
  Statement& bind(int i, const std::optional<double>& v) {
    check(v ? sqlite3_bind_double(stmt_, i, *v) : sqlite3_bind_null(stmt_, i));
    return *this;
  }
  /// true while there is a row.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
  }
  void run() {
    while (step()) {
    }
  }
  /// Ready to bind and run again.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::optional<double> real(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, col);
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail("bind");
  }
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errmsg(db);
    sqlite3_free(error);
    throw std::runtime_error(path + ": " + message);
  }
}

int user_version(sqlite3* db, const std::string& path) {
  Statement s(db, path, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

/// BEGIN IMMEDIATE ... COMMIT, rolled back when the scope is left by an exception.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) { exec(db, path, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, path_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  std::string path_;
  bool done_ = false;
};

HistoryRun read_run(const Statement& s) {
  HistoryRun r;
  r.id = s.integer(0);
  r.recorded_at = s.text(1);
  r.started_at = s.text(2);
  r.finished_at = s.text(3);
  r.config_name = s.text(4);
  r.config_sha256 = s.text(5);
  r.git_sha = s.text(6);
  r.tool_version = s.text(7);
  r.command = s.text(8);
  r.status = s.text(9);
  r.host_fingerprint = s.text(10);
  r.hostname = s.text(11);
  r.pricing_table = s.text(12);
  r.pricing_retrieved = s.text(13);
  r.results = s.integer(14);
  r.results_sha256 = s.text(15);
  r.pricing_sha256 = s.text(16);
  r.pricing_published = s.text(17);
  return r;
}

const char* kRunColumns =
    "SELECT id, recorded_at, started_at, finished_at, config_name, config_sha256, git_sha, tool_version, command, "
    "status, host_fingerprint, hostname, pricing_table, pricing_retrieved, "
    "(SELECT count(*) FROM results WHERE results.run_id = runs.id), results_sha256, pricing_sha256, pricing_published FROM runs";

}  // namespace

std::string host_fingerprint(const nlohmann::json& host) {
  const std::string facts = host_fact(host, {"cpu_model"}) + "\n" + host_fact(host, {"logical_cpus"}) + "\n" +
                            host_fact(host, {"blas", "library"}) + "\n" +
                            host_fact(host, {"torch", "libtorch_version"});
  return sha256_hex(facts).substr(0, 12);
}

std::string default_history_path() {
  const char* env = std::getenv("PPERF_HISTORY");
  return env && *env ? env : "results/history.sqlite";
}

nlohmann::json to_json(const HistoryRun& r) {
  return {{"id", r.id},
          {"recorded_at", r.recorded_at},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.finished_at)},
          {"config_name", r.config_name},
          {"config_sha256", r.config_sha256},
          {"git_sha", r.git_sha},
          {"tool_version", r.tool_version},
          {"command", r.command},
          {"status", r.status},
          {"host_fingerprint", r.host_fingerprint},
          {"hostname", r.hostname},
          {"pricing_table", r.pricing_table},
          {"pricing_retrieved", r.pricing_retrieved},
          {"pricing_sha256", r.pricing_sha256},
          {"pricing_published", r.pricing_published.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.pricing_published)},
          {"results_sha256", r.results_sha256},
          {"results", r.results}};
}

std::string PriceTableIdentity::label() const {
  return name + " (published " + (published.empty() ? "unknown" : published) + ", retrieved " + retrieved +
         (sha256.empty() ? std::string() : ", sha256 " + sha256.substr(0, 12)) + ")";
}

bool PairKey::operator<(const PairKey& o) const {
  return std::tie(workload, preset, batch_size, configuration) < std::tie(o.workload, o.preset, o.batch_size, o.configuration);
}
bool PairKey::operator==(const PairKey& o) const {
  return std::tie(workload, preset, batch_size, configuration) == std::tie(o.workload, o.preset, o.batch_size, o.configuration);
}
std::string PairKey::label() const {
  return workload + (preset.empty() ? "" : "/" + preset) + "/" + std::to_string(batch_size) + " " + configuration;
}
PairKey pair_key(const Result& r) { return {r.workload, r.preset, r.batch_size, r.configuration}; }

History::History(const std::string& path, Mode mode, int target_version) : path_(path) {
  namespace fs = std::filesystem;
  if (mode == Mode::read && !fs::exists(path))
    throw InputError(path, "", "no history database here (record a run first: `pperf history record` or `pperf run --history`)");
  if (mode == Mode::create && fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
  const int flags = SQLITE_OPEN_READWRITE | (mode == Mode::create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "cannot open";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(path, "", "cannot open the history database: " + message);
  }
  try {
    sqlite3_busy_timeout(db_, 60000);
    int version;
    try {
      exec(db_, path_, "PRAGMA foreign_keys = ON");
      version = user_version(db_, path_);
      Statement tables(db_, path_, "SELECT count(*) FROM sqlite_master");
      tables.step();
      if (version == 0 && tables.integer(0) > 0)
        throw InputError(path, "", "not a pperf history database (it has tables but no pperf schema version)");
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const InputError*>(&e)) throw;
      throw InputError(path, "", std::string("not a pperf history database: ") + sqlite3_errmsg(db_));
    }
    if (version > kHistorySchemaVersion)
      throw InputError(path, "", fmt::format("history schema version {} is newer than this pperf reads ({}): "
                                             "use a newer pperf", version, kHistorySchemaVersion));
    // WAL: readers never block the writer and a writer never blocks readers; a second writer
    // waits (busy timeout) instead of failing.
    exec(db_, path_, "PRAGMA journal_mode = WAL");
    exec(db_, path_, "PRAGMA synchronous = NORMAL");
    if (version < target_version) {
      Transaction t(db_, path_);
      version = user_version(db_, path_);  // another process may have migrated meanwhile
      for (int v = version; v < target_version; ++v) {
        exec(db_, path_, kMigrations[v]);
        exec(db_, path_, fmt::format("PRAGMA user_version = {}", v + 1));
      }
      t.commit();
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

History::~History() {
  if (db_) sqlite3_close(db_);
}

int History::schema_version() const { return user_version(db_, path_); }

History::Recorded History::record(const std::string& text, const RunReport& report) {
  const std::string sha = sha256_hex(text);
  Transaction t(db_, path_);
  {
    Statement existing(db_, path_, "SELECT id FROM runs WHERE results_sha256 = ?");
    existing.bind(1, sha);
    if (existing.step()) return {existing.integer(0), true};
  }
  // A database kept at an older schema (tests make one) has no table-identity columns.
  const bool table_identity = schema_version() >= 3;
  Statement insert(db_, path_,
                   table_identity
                       ? "INSERT INTO runs (recorded_at, started_at, finished_at, config_name, config_path, config_sha256, "
                         "git_sha, tool_version, command, status, host_fingerprint, hostname, cpu_model, logical_cpus, "
                         "pricing_table, pricing_retrieved, currency, results_sha256, results_json, pricing_sha256, "
                         "pricing_published) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                       : "INSERT INTO runs (recorded_at, started_at, finished_at, config_name, config_path, config_sha256, "
                         "git_sha, tool_version, command, status, host_fingerprint, hostname, cpu_model, logical_cpus, "
                         "pricing_table, pricing_retrieved, currency, results_sha256, results_json) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const auto& host = report.host;
  insert.bind(1, utc_timestamp()).bind(2, report.started_at).bind(4, report.config_name).bind(5, report.config_path);
  if (!report.finished_at.empty()) insert.bind(3, report.finished_at);
  insert.bind(6, report.config_sha256).bind(7, report.git_sha).bind(8, report.tool_version).bind(9, report.command);
  insert.bind(10, to_string(report.status)).bind(11, host_fingerprint(host)).bind(12, host_fact(host, {"hostname"}));
  insert.bind(13, host_fact(host, {"cpu_model"}));
  if (host.is_object() && host.contains("logical_cpus") && host["logical_cpus"].is_number_integer())
    insert.bind(14, host["logical_cpus"].get<int64_t>());
  insert.bind(15, report.pricing_table).bind(16, report.pricing_retrieved).bind(17, report.pricing_currency);
  insert.bind(18, sha).bind(19, text);
  if (table_identity) insert.bind(20, report.pricing_sha256).bind(21, report.pricing_published);
  insert.run();
  const int64_t id = sqlite3_last_insert_rowid(db_);
  Statement result(db_, path_,
                   "INSERT INTO results (run_id, idx, workload, preset, batch_size, configuration, baseline, measured, "
                   "status, median_ms, ci95_lo_ms, ci95_hi_ms, n, usd_per_hour, usd_per_step, samples_per_s, "
                   "improvement_pct) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    std::optional<double> median, lo, hi, uph, ups;
    if (r.step) median = r.step->median_ms;
    if (r.step && r.step->ci95_ms) lo = (*r.step->ci95_ms)[0], hi = (*r.step->ci95_ms)[1];
    if (r.cost) uph = r.cost->usd_per_hour, ups = r.cost->usd_per_step;
    result.bind(1, id).bind(2, static_cast<int64_t>(i)).bind(3, r.workload).bind(4, r.preset).bind(5, r.batch_size);
    result.bind(6, r.configuration).bind(7, int64_t{r.baseline}).bind(8, int64_t{r.measured}).bind(9, to_string(r.status));
    result.bind(10, median).bind(11, lo).bind(12, hi);
    result.bind(13, static_cast<int64_t>(r.measurement ? r.measurement->step_ms.size() : 0));
    result.bind(14, uph).bind(15, ups).bind(16, r.samples_per_s).bind(17, r.comparison.improvement_pct);
    result.run();
    result.reset();
  }
  // Tests stop a recorder here, inside the transaction, to show a killed run leaves nothing.
  if (const char* pause = std::getenv("PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S")) {
    std::cerr << "pperf history: pausing before commit (test)\n" << std::flush;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(pause)));
  }
  t.commit();
  return {id, false};
}

std::vector<HistoryRun> History::list(const std::optional<std::string>& config_name, std::optional<int64_t> last,
                                      const std::optional<std::string>& fingerprint, bool complete_only) const {
  std::string sql = std::string(kRunColumns) + " WHERE (?1 IS NULL OR config_name = ?1) AND (?2 IS NULL OR "
                    "host_fingerprint = ?2) AND (?3 = 0 OR status = 'complete') ORDER BY started_at DESC, id DESC";
  if (last) sql += " LIMIT ?4";
  Statement s(db_, path_, sql.c_str());
  if (config_name) s.bind(1, *config_name);
  if (fingerprint) s.bind(2, *fingerprint);
  s.bind(3, int64_t{complete_only});
  if (last) s.bind(4, *last);
  std::vector<HistoryRun> out;
  while (s.step()) out.push_back(read_run(s));
  std::reverse(out.begin(), out.end());
  return out;
}

std::optional<HistoryRun> History::run(int64_t id) const {
  Statement s(db_, path_, (std::string(kRunColumns) + " WHERE id = ?").c_str());
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::optional<std::string> History::results_text(int64_t id) const {
  Statement s(db_, path_, "SELECT results_json FROM runs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

std::vector<std::pair<PairKey, std::vector<SeriesPoint>>> History::series(const std::string& config_name,
                                                                          const std::string& fingerprint) const {
  Statement s(db_, path_,
              "SELECT r.run_id, runs.started_at, runs.git_sha, r.workload, r.preset, r.batch_size, r.configuration, "
              "r.median_ms, r.usd_per_step, runs.pricing_table, runs.pricing_sha256, runs.pricing_published, "
              "runs.pricing_retrieved FROM results r JOIN runs ON runs.id = r.run_id "
              "WHERE runs.config_name = ? AND runs.host_fingerprint = ? AND runs.status = 'complete' "
              "AND r.status = 'ok' AND r.median_ms IS NOT NULL ORDER BY runs.started_at, runs.id, r.idx");
  s.bind(1, config_name).bind(2, fingerprint);
  std::vector<std::pair<PairKey, std::vector<SeriesPoint>>> out;
  std::map<PairKey, size_t> index;
  while (s.step()) {
    PairKey key{s.text(3), s.text(4), s.integer(5), s.text(6)};
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back({key, {}});
    }
    SeriesPoint point{s.integer(0), s.text(1), s.text(2), *s.real(7), s.real(8), {}};
    // Runs recorded before the table's sha256 was kept are told apart by name and date alone.
    point.price_table = {s.text(9), s.text(10), s.text(11), s.text(12)};
    out[it->second].second.push_back(point);
  }
  return out;
}

std::vector<std::string> History::fingerprints(const std::string& config_name) const {
  Statement s(db_, path_,
              "SELECT host_fingerprint FROM runs WHERE config_name = ? GROUP BY host_fingerprint ORDER BY min(id)");
  s.bind(1, config_name);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::vector<std::string> History::config_names() const {
  Statement s(db_, path_, "SELECT config_name FROM runs GROUP BY config_name ORDER BY min(id)");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void History::store_detected(const std::string& config_name, const std::string& fingerprint,
                             const std::vector<StoredChangePoint>& detected) {
  Transaction t(db_, path_);
  Statement del(db_, path_,
                "DELETE FROM change_points WHERE config_name = ? AND host_fingerprint = ? AND source = 'detected'");
  del.bind(1, config_name).bind(2, fingerprint);
  del.run();
  Statement ins(db_, path_,
                "INSERT INTO change_points (config_name, host_fingerprint, workload, preset, batch_size, configuration, "
                "metric, run_id, before, after, source, note, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'detected', ?, ?)");
  const std::string now = utc_timestamp();
  for (const auto& c : detected) {
    ins.bind(1, config_name).bind(2, fingerprint).bind(3, c.pair.workload).bind(4, c.pair.preset);
    ins.bind(5, c.pair.batch_size).bind(6, c.pair.configuration).bind(7, c.metric).bind(8, c.run_id);
    ins.bind(9, c.before).bind(10, c.after).bind(11, c.note).bind(12, now);
    ins.run();
    ins.reset();
  }
  t.commit();
}

void History::mark(const StoredChangePoint& c) {
  Transaction t(db_, path_);
  Statement ins(db_, path_,
                "INSERT INTO change_points (config_name, host_fingerprint, workload, preset, batch_size, configuration, "
                "metric, run_id, before, after, source, note, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 'marked', ?, ?)");
  ins.bind(1, c.config_name).bind(2, c.host_fingerprint).bind(3, c.pair.workload).bind(4, c.pair.preset);
  ins.bind(5, c.pair.batch_size).bind(6, c.pair.configuration).bind(7, c.metric).bind(8, c.run_id);
  ins.bind(9, c.note).bind(10, utc_timestamp());
  ins.run();
  t.commit();
}

std::vector<StoredChangePoint> History::change_points(const std::string& config_name,
                                                      const std::optional<std::string>& fingerprint) const {
  Statement s(db_, path_,
              "SELECT c.run_id, c.config_name, c.host_fingerprint, c.metric, c.workload, c.preset, c.batch_size, "
              "c.configuration, c.before, c.after, c.source, c.note FROM change_points c JOIN runs ON runs.id = c.run_id "
              "WHERE c.config_name = ?1 AND (?2 IS NULL OR c.host_fingerprint = ?2) ORDER BY runs.started_at, c.id");
  s.bind(1, config_name);
  if (fingerprint) s.bind(2, *fingerprint);
  std::vector<StoredChangePoint> out;
  while (s.step()) {
    StoredChangePoint c;
    c.run_id = s.integer(0);
    c.config_name = s.text(1);
    c.host_fingerprint = s.text(2);
    c.metric = s.text(3);
    c.pair = PairKey{s.text(4), s.text(5), s.integer(6), s.text(7)};
    c.before = s.real(8);
    c.after = s.real(9);
    c.source = s.text(10);
    c.note = s.text(11);
    out.push_back(c);
  }
  return out;
}

}  // namespace pperf
