#include "src/history/history.h"

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
#include <fmt/ranges.h>

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"

namespace pperf {

namespace {

/// BEGIN ... COMMIT, rolled back when the scope is left by an exception.
class Transaction {
 public:
  Transaction(HistoryBackend& db, bool writer) : db_(db) { db_.begin(writer); }
  ~Transaction() {
    if (!done_) db_.rollback();
  }
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  HistoryBackend& db_;
  bool done_ = false;
};

HistoryRun read_run(const SqlRow& s) {
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

std::string SqlRow::text(size_t i) const {
  const SqlCell& c = cells.at(i);
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* n = std::get_if<int64_t>(&c)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&c)) return fmt::format("{}", *d);
  return {};
}
int64_t SqlRow::integer(size_t i) const {
  const SqlCell& c = cells.at(i);
  if (const auto* n = std::get_if<int64_t>(&c)) return *n;
  if (const auto* s = std::get_if<std::string>(&c)) return std::strtoll(s->c_str(), nullptr, 10);
  if (const auto* d = std::get_if<double>(&c)) return static_cast<int64_t>(*d);
  return 0;
}
std::optional<double> SqlRow::real(size_t i) const {
  const SqlCell& c = cells.at(i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* n = std::get_if<int64_t>(&c)) return static_cast<double>(*n);
  if (const auto* s = std::get_if<std::string>(&c)) return std::strtod(s->c_str(), nullptr);
  return std::nullopt;
}

bool is_postgres_uri(const std::string& db) { return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0; }

std::string redact_postgres_uri(const std::string& uri) {
  const size_t scheme_end = uri.find("://") + 3;
  std::string rest = uri.substr(scheme_end);
  rest = rest.substr(0, rest.find('?'));
  const size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash), path = slash == std::string::npos ? "" : rest.substr(slash);
  std::string user;
  if (const size_t at = authority.rfind('@'); at != std::string::npos) {
    user = authority.substr(0, at);
    user = user.substr(0, user.find(':'));  // the password never leaves here
    authority = authority.substr(at + 1);
  }
  return "postgresql://" + (user.empty() ? "" : user + "@") + authority + path;
}

void check_history_db(const std::string& db, const std::string& flag) {
  if (!is_postgres_uri(db)) return;
  if (const auto problem = postgres_uri_problem(db)) throw InputError(flag, "", "not a PostgreSQL URI libpq can read: " + *problem);
}

namespace {
std::unique_ptr<HistoryBackend> open_backend(const std::string& db, bool create) {
  if (is_postgres_uri(db)) return open_postgres_backend(db);
  return open_sqlite_backend(db, create);
}
}  // namespace

History::History(const std::string& path, Mode mode, int target_version) : db_(open_backend(path, mode == Mode::create)) {
  path_ = db_->name();
  int version = db_->schema_version();
  if (version > kHistorySchemaVersion)
    throw InputError(path_, "", fmt::format("history schema version {} is newer than this pperf reads ({}): "
                                            "use a newer pperf", version, kHistorySchemaVersion));
  if (version == 0 && mode == Mode::read && std::string(db_->kind()) == "postgresql")
    throw InputError(path_, "", "no pperf history in this database (record a run first: `pperf history record` or `pperf run --history`)");
  if (version < target_version) {
    Transaction t(*db_, true);
    db_->lock_schema();
    version = db_->schema_version();  // another process may have migrated meanwhile
    for (int v = version; v < target_version; ++v) {
      db_->exec(db_->migration(v));
      db_->set_schema_version(v + 1);
    }
    t.commit();
  }
}

History::~History() = default;

bool History::exists(const std::string& db) {
  if (!is_postgres_uri(db)) return std::filesystem::exists(db);
  auto backend = open_postgres_backend(db);
  return backend->schema_version() > 0;
}

const char* History::backend_kind() const { return db_->kind(); }

int History::schema_version() const { return db_->schema_version(); }

History::Recorded History::record(const std::string& text, const RunReport& report) {
  RunRow row;
  const auto& host = report.host;
  row.recorded_at = utc_timestamp();
  row.started_at = report.started_at;
  if (!report.finished_at.empty()) row.finished_at = report.finished_at;
  row.config_name = report.config_name;
  row.config_path = report.config_path;
  row.config_sha256 = report.config_sha256;
  row.git_sha = report.git_sha;
  row.tool_version = report.tool_version;
  row.command = report.command;
  row.status = to_string(report.status);
  row.host_fingerprint = host_fingerprint(host);
  row.hostname = host_fact(host, {"hostname"});
  row.cpu_model = host_fact(host, {"cpu_model"});
  if (host.is_object() && host.contains("logical_cpus") && host["logical_cpus"].is_number_integer())
    row.logical_cpus = host["logical_cpus"].get<int64_t>();
  row.pricing_table = report.pricing_table;
  row.pricing_retrieved = report.pricing_retrieved;
  row.currency = report.pricing_currency;
  row.pricing_sha256 = report.pricing_sha256;
  row.pricing_published = report.pricing_published;
  row.results_json = text;
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    ResultRow out;
    out.workload = r.workload;
    out.preset = r.preset;
    out.batch_size = r.batch_size;
    out.configuration = r.configuration;
    out.baseline = r.baseline;
    out.measured = r.measured;
    out.status = to_string(r.status);
    if (r.step) out.median_ms = r.step->median_ms;
    if (r.step && r.step->ci95_ms) out.ci95_lo_ms = (*r.step->ci95_ms)[0], out.ci95_hi_ms = (*r.step->ci95_ms)[1];
    out.n = static_cast<int64_t>(r.measurement ? r.measurement->step_ms.size() : 0);
    if (r.cost) out.usd_per_hour = r.cost->usd_per_hour, out.usd_per_step = r.cost->usd_per_step;
    out.samples_per_s = r.samples_per_s;
    out.improvement_pct = r.comparison.improvement_pct;
    if (r.step) {
      out.mean_ms = r.step->mean_ms;
      if (r.step->mean_ci95_ms) out.mean_ci95_lo_ms = (*r.step->mean_ci95_ms)[0], out.mean_ci95_hi_ms = (*r.step->mean_ci95_ms)[1];
    }
    if (r.cost && r.cost->usd_per_step_ci95)
      out.usd_per_step_ci95_lo = (*r.cost->usd_per_step_ci95)[0], out.usd_per_step_ci95_hi = (*r.cost->usd_per_step_ci95)[1];
    if (r.decision) out.decision = to_string(r.decision->verdict);
    row.results.push_back(out);
  }
  return insert(row);
}

namespace {
SqlParam opt(const std::optional<double>& v) { return v ? SqlParam(*v) : SqlParam(nullptr); }
SqlParam opt(const std::optional<int64_t>& v) { return v ? SqlParam(*v) : SqlParam(nullptr); }
SqlParam opt(const std::optional<std::string>& v) { return v ? SqlParam(*v) : SqlParam(nullptr); }
}  // namespace

History::Recorded History::insert(const RunRow& row) {
  const std::string sha = sha256_hex(row.results_json);
  Transaction t(*db_, true);
  {
    const auto existing = db_->query("SELECT id FROM runs WHERE results_sha256 = $1", {sha});
    if (!existing.empty()) return {existing[0].integer(0), true};
  }
  // A database kept at an older schema (tests make one) has no table-identity columns.
  const bool table_identity = schema_version() >= 3;
  std::vector<SqlParam> params = {row.recorded_at, row.started_at, opt(row.finished_at), row.config_name, row.config_path,
                                  row.config_sha256, row.git_sha, row.tool_version, row.command, row.status,
                                  row.host_fingerprint, row.hostname, row.cpu_model, opt(row.logical_cpus),
                                  row.pricing_table, row.pricing_retrieved, row.currency, sha, row.results_json};
  if (table_identity) params.push_back(row.pricing_sha256), params.push_back(row.pricing_published);
  // Two recorders of one file at once: the second waits for the first's commit (the unique key
  // on results_sha256), inserts nothing, and is told the first run's id.
  const auto inserted = db_->query(
      table_identity
          ? "INSERT INTO runs (recorded_at, started_at, finished_at, config_name, config_path, config_sha256, "
            "git_sha, tool_version, command, status, host_fingerprint, hostname, cpu_model, logical_cpus, "
            "pricing_table, pricing_retrieved, currency, results_sha256, results_json, pricing_sha256, "
            "pricing_published) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
            "$18, $19, $20, $21) ON CONFLICT (results_sha256) DO NOTHING RETURNING id"
          : "INSERT INTO runs (recorded_at, started_at, finished_at, config_name, config_path, config_sha256, "
            "git_sha, tool_version, command, status, host_fingerprint, hostname, cpu_model, logical_cpus, "
            "pricing_table, pricing_retrieved, currency, results_sha256, results_json) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) "
            "ON CONFLICT (results_sha256) DO NOTHING RETURNING id",
      params);
  if (inserted.empty()) {
    const auto existing = db_->query("SELECT id FROM runs WHERE results_sha256 = $1", {sha});
    if (existing.empty()) throw std::runtime_error(path_ + ": the run vanished while it was recorded");
    return {existing[0].integer(0), true};
  }
  const int64_t id = inserted[0].integer(0);
  const bool dashboard_columns = schema_version() >= 4;
  for (size_t i = 0; i < row.results.size(); ++i) {
    const ResultRow& r = row.results[i];
    std::vector<SqlParam> values = {id, static_cast<int64_t>(i), r.workload, r.preset, r.batch_size, r.configuration,
                                    int64_t{r.baseline}, int64_t{r.measured}, r.status, opt(r.median_ms), opt(r.ci95_lo_ms),
                                    opt(r.ci95_hi_ms), r.n, opt(r.usd_per_hour), opt(r.usd_per_step), opt(r.samples_per_s),
                                    opt(r.improvement_pct)};
    if (dashboard_columns)
      for (const SqlParam& v : {opt(r.mean_ms), opt(r.mean_ci95_lo_ms), opt(r.mean_ci95_hi_ms), opt(r.usd_per_step_ci95_lo),
                                opt(r.usd_per_step_ci95_hi), opt(r.decision)})
        values.push_back(v);
    db_->query(dashboard_columns
                   ? "INSERT INTO results (run_id, idx, workload, preset, batch_size, configuration, baseline, measured, "
                     "status, median_ms, ci95_lo_ms, ci95_hi_ms, n, usd_per_hour, usd_per_step, samples_per_s, "
                     "improvement_pct, mean_ms, mean_ci95_lo_ms, mean_ci95_hi_ms, usd_per_step_ci95_lo, usd_per_step_ci95_hi, "
                     "decision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, "
                     "$20, $21, $22, $23)"
                   : "INSERT INTO results (run_id, idx, workload, preset, batch_size, configuration, baseline, measured, "
                     "status, median_ms, ci95_lo_ms, ci95_hi_ms, n, usd_per_hour, usd_per_step, samples_per_s, "
                     "improvement_pct) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
               values);
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
  std::string sql = std::string(kRunColumns) +
                    " WHERE (CAST($1 AS TEXT) IS NULL OR config_name = CAST($1 AS TEXT)) AND (CAST($2 AS TEXT) IS NULL OR "
                    "host_fingerprint = CAST($2 AS TEXT)) AND ($3 = 0 OR status = 'complete') ORDER BY started_at DESC, id DESC";
  std::vector<SqlParam> params = {opt(config_name), opt(fingerprint), int64_t{complete_only}};
  if (last) sql += " LIMIT $4", params.push_back(*last);
  std::vector<HistoryRun> out;
  for (const auto& row : db_->query(sql, params)) out.push_back(read_run(row));
  std::reverse(out.begin(), out.end());
  return out;
}

std::optional<HistoryRun> History::run(int64_t id) const {
  const auto rows = db_->query(std::string(kRunColumns) + " WHERE id = $1", {id});
  if (rows.empty()) return std::nullopt;
  return read_run(rows[0]);
}

std::optional<std::string> History::results_text(int64_t id) const {
  const auto rows = db_->query("SELECT results_json FROM runs WHERE id = $1", {id});
  if (rows.empty()) return std::nullopt;
  return rows[0].text(0);
}

std::vector<std::pair<PairKey, std::vector<SeriesPoint>>> History::series(const std::string& config_name,
                                                                          const std::string& fingerprint) const {
  const auto rows = db_->query(
      "SELECT r.run_id, runs.started_at, runs.git_sha, r.workload, r.preset, r.batch_size, r.configuration, "
      "r.median_ms, r.usd_per_step, runs.pricing_table, runs.pricing_sha256, runs.pricing_published, "
      "runs.pricing_retrieved FROM results r JOIN runs ON runs.id = r.run_id "
      "WHERE runs.config_name = $1 AND runs.host_fingerprint = $2 AND runs.status = 'complete' "
      "AND r.status = 'ok' AND r.median_ms IS NOT NULL ORDER BY runs.started_at, runs.id, r.idx",
      {config_name, fingerprint});
  std::vector<std::pair<PairKey, std::vector<SeriesPoint>>> out;
  std::map<PairKey, size_t> index;
  for (const auto& s : rows) {
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
  std::vector<std::string> out;
  for (const auto& row : db_->query("SELECT host_fingerprint FROM runs WHERE config_name = $1 GROUP BY host_fingerprint ORDER BY min(id)",
                                    {config_name}))
    out.push_back(row.text(0));
  return out;
}

std::vector<std::string> History::config_names() const {
  std::vector<std::string> out;
  for (const auto& row : db_->query("SELECT config_name FROM runs GROUP BY config_name ORDER BY min(id)", {}))
    out.push_back(row.text(0));
  return out;
}

namespace {
const char* kInsertChangePoint =
    "INSERT INTO change_points (config_name, host_fingerprint, workload, preset, batch_size, configuration, "
    "metric, run_id, before, after, source, note, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";
}  // namespace

void History::store_detected(const std::string& config_name, const std::string& fingerprint,
                             const std::vector<StoredChangePoint>& detected) {
  Transaction t(*db_, true);
  db_->query("DELETE FROM change_points WHERE config_name = $1 AND host_fingerprint = $2 AND source = 'detected'",
             {config_name, fingerprint});
  const std::string now = utc_timestamp();
  for (const auto& c : detected)
    db_->query(kInsertChangePoint, {config_name, fingerprint, c.pair.workload, c.pair.preset, c.pair.batch_size,
                                    c.pair.configuration, c.metric, c.run_id, opt(c.before), opt(c.after),
                                    std::string("detected"), c.note, now});
  t.commit();
}

void History::mark(const StoredChangePoint& c) {
  Transaction t(*db_, true);
  db_->query(kInsertChangePoint, {c.config_name, c.host_fingerprint, c.pair.workload, c.pair.preset, c.pair.batch_size,
                                  c.pair.configuration, c.metric, c.run_id, nullptr, nullptr, std::string("marked"), c.note,
                                  utc_timestamp()});
  t.commit();
}

std::vector<StoredChangePoint> History::change_points(const std::string& config_name,
                                                      const std::optional<std::string>& fingerprint) const {
  std::vector<StoredChangePoint> out;
  for (const auto& s : db_->query(
           "SELECT c.run_id, c.config_name, c.host_fingerprint, c.metric, c.workload, c.preset, c.batch_size, "
           "c.configuration, c.before, c.after, c.source, c.note FROM change_points c JOIN runs ON runs.id = c.run_id "
           "WHERE c.config_name = $1 AND (CAST($2 AS TEXT) IS NULL OR c.host_fingerprint = CAST($2 AS TEXT)) "
           "ORDER BY runs.started_at, c.id",
           {config_name, opt(fingerprint)})) {
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

namespace {
/// A SELECT's columns named once: the list is made from the names, and a row's cell is read by
/// its name (a name not selected is a programming error).
class Selected {
 public:
  explicit Selected(std::vector<std::string> names) : names_(std::move(names)) {}
  std::string list() const { return fmt::format("{}", fmt::join(names_, ", ")); }
  /// One row of this SELECT.
  class Row {
   public:
    Row(const Selected& columns, const SqlRow& row) : columns_(columns), row_(row) {}
    bool null(const char* name) const { return row_.null(columns_.at(name)); }
    std::string text(const char* name) const { return row_.text(columns_.at(name)); }
    int64_t integer(const char* name) const { return row_.integer(columns_.at(name)); }
    std::optional<double> real(const char* name) const { return row_.real(columns_.at(name)); }

   private:
    const Selected& columns_;
    const SqlRow& row_;
  };
  Row operator()(const SqlRow& row) const { return Row(*this, row); }

 private:
  size_t at(const char* name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) throw std::logic_error(std::string("column not selected: ") + name);
    return static_cast<size_t>(it - names_.begin());
  }
  std::vector<std::string> names_;
};
}  // namespace

History::CopyCounts History::copy_from(const History& from) {
  CopyCounts counts;
  // Both at this pperf's schema: `from` was opened (and so migrated) by it.
  if (from.schema_version() != kHistorySchemaVersion)
    throw InputError(from.path(), "", fmt::format("history schema version {}: copy needs {} (open it with `pperf history list` first)",
                                                  from.schema_version(), kHistorySchemaVersion));
  // Oldest id first: the copies' ids keep the source's order.
  const auto ids = from.db_->query("SELECT id FROM runs ORDER BY id", {});
  std::map<int64_t, int64_t> id_map;  // source id -> target id
  for (const auto& id_row : ids) {
    const int64_t source_id = id_row.integer(0);
    static const Selected run_columns({"recorded_at", "started_at", "finished_at", "config_name", "config_path", "config_sha256",
                                       "git_sha", "tool_version", "command", "status", "host_fingerprint", "hostname",
                                       "cpu_model", "logical_cpus", "pricing_table", "pricing_retrieved", "currency",
                                       "results_json", "pricing_sha256", "pricing_published"});
    const SqlRow found = from.db_->query("SELECT " + run_columns.list() + " FROM runs WHERE id = $1", {source_id}).at(0);
    const Selected::Row r = run_columns(found);
    RunRow row;
    row.recorded_at = r.text("recorded_at");
    row.started_at = r.text("started_at");
    if (!r.null("finished_at")) row.finished_at = r.text("finished_at");
    row.config_name = r.text("config_name");
    row.config_path = r.text("config_path");
    row.config_sha256 = r.text("config_sha256");
    row.git_sha = r.text("git_sha");
    row.tool_version = r.text("tool_version");
    row.command = r.text("command");
    row.status = r.text("status");
    row.host_fingerprint = r.text("host_fingerprint");
    row.hostname = r.text("hostname");
    row.cpu_model = r.text("cpu_model");
    if (!r.null("logical_cpus")) row.logical_cpus = r.integer("logical_cpus");
    row.pricing_table = r.text("pricing_table");
    row.pricing_retrieved = r.text("pricing_retrieved");
    row.currency = r.text("currency");
    row.results_json = r.text("results_json");
    row.pricing_sha256 = r.text("pricing_sha256");
    row.pricing_published = r.text("pricing_published");
    static const Selected result_columns({"workload", "preset", "batch_size", "configuration", "baseline", "measured", "status",
                                          "median_ms", "ci95_lo_ms", "ci95_hi_ms", "n", "usd_per_hour", "usd_per_step",
                                          "samples_per_s", "improvement_pct", "mean_ms", "mean_ci95_lo_ms", "mean_ci95_hi_ms",
                                          "usd_per_step_ci95_lo", "usd_per_step_ci95_hi", "decision"});
    for (const auto& result :
         from.db_->query("SELECT " + result_columns.list() + " FROM results WHERE run_id = $1 ORDER BY idx", {source_id})) {
      const Selected::Row x = result_columns(result);
      ResultRow out;
      out.workload = x.text("workload");
      out.preset = x.text("preset");
      out.batch_size = x.integer("batch_size");
      out.configuration = x.text("configuration");
      out.baseline = x.integer("baseline") != 0;
      out.measured = x.integer("measured") != 0;
      out.status = x.text("status");
      out.median_ms = x.real("median_ms");
      out.ci95_lo_ms = x.real("ci95_lo_ms");
      out.ci95_hi_ms = x.real("ci95_hi_ms");
      out.n = x.integer("n");
      out.usd_per_hour = x.real("usd_per_hour");
      out.usd_per_step = x.real("usd_per_step");
      out.samples_per_s = x.real("samples_per_s");
      out.improvement_pct = x.real("improvement_pct");
      out.mean_ms = x.real("mean_ms");
      out.mean_ci95_lo_ms = x.real("mean_ci95_lo_ms");
      out.mean_ci95_hi_ms = x.real("mean_ci95_hi_ms");
      out.usd_per_step_ci95_lo = x.real("usd_per_step_ci95_lo");
      out.usd_per_step_ci95_hi = x.real("usd_per_step_ci95_hi");
      if (!x.null("decision")) out.decision = x.text("decision");
      row.results.push_back(out);
    }
    const Recorded rec = insert(row);
    id_map[source_id] = rec.id;
    ++(rec.already ? counts.runs_present : counts.runs_copied);
  }
  // Marked change points (detected ones are `history changes`' to recompute), each once.
  for (const auto& c : from.db_->query(
           "SELECT config_name, host_fingerprint, workload, preset, batch_size, configuration, metric, run_id, note, "
           "created_at FROM change_points WHERE source = 'marked' ORDER BY id",
           {})) {
    const int64_t run_id = id_map.at(c.integer(7));
    Transaction t(*db_, true);
    const std::vector<SqlParam> key = {c.text(0), c.text(1), c.text(2), c.text(3), c.integer(4), c.text(5), c.text(6),
                                       run_id, c.text(8)};
    const auto present = db_->query(
        "SELECT count(*) FROM change_points WHERE source = 'marked' AND config_name = $1 AND host_fingerprint = $2 AND "
        "workload = $3 AND preset = $4 AND batch_size = $5 AND configuration = $6 AND metric = $7 AND run_id = $8 AND "
        "note = $9",
        key);
    if (present.at(0).integer(0) > 0) {
      ++counts.marks_present;
      continue;
    }
    db_->query(kInsertChangePoint, {c.text(0), c.text(1), c.text(2), c.text(3), c.integer(4), c.text(5), c.text(6), run_id,
                                    nullptr, nullptr, std::string("marked"), c.text(8), c.text(9)});
    t.commit();
    ++counts.marks_copied;
  }
  return counts;
}

}  // namespace pperf
