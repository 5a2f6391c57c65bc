#pragma once
// The SQL dialect behind `History`: one small interface, two backends (an embedded SQLite file,
// a PostgreSQL server reached by a postgresql:// URI). History writes its queries once, with
// `$1`..`$N` placeholders and SQL both dialects share; what differs (connecting, DDL, the
// schema version's home, transactions, locking for migrations) lives behind this interface.
//
// What every backend guarantees to History:
//  - query() runs one statement and returns every row; integers and reals read back exactly
//    (a double round-trips bit for bit), text byte for byte; errors throw std::runtime_error
//    whose message starts with name() and never holds a password.
//  - begin()/commit() bracket one transaction that either lands whole or not at all;
//    rollback() never throws. begin(true) is a writer's transaction: concurrent writers wait
//    for each other (SQLite: BEGIN IMMEDIATE, busy timeout) or are told apart by the unique key
//    on runs.results_sha256 (PostgreSQL: READ COMMITTED, INSERT ... ON CONFLICT).
//  - schema_version() is 0 for an empty database, the pperf schema version otherwise, and throws
//    InputError when the database holds tables but no pperf marker (it is not pperf's).
//  - lock_schema() (inside a transaction) keeps another pperf from migrating at the same time.
//  - Every wait is bounded: SQLite's busy timeout; PostgreSQL's connect_timeout and
//    statement_timeout.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pperf {

/// A parameter: NULL, an integer, a real or text.
using SqlParam = std::variant<std::nullptr_t, int64_t, double, std::string>;

/// One cell as the backend gives it (PostgreSQL: text; SQLite: its storage class).
using SqlCell = std::variant<std::monostate, int64_t, double, std::string>;

struct SqlRow {
  std::vector<SqlCell> cells;
  bool null(size_t i) const { return std::holds_alternative<std::monostate>(cells.at(i)); }
  std::string text(size_t i) const;
  int64_t integer(size_t i) const;
  std::optional<double> real(size_t i) const;
};

/// The dashboard views (schema version 4 on), one text for both backends but for `{epoch}`,
/// the dialect's expression of started_at as Unix seconds. Stable: columns are only ever added.
inline std::string history_views_sql(const std::string& epoch) {
  std::string sql = R"sql(
CREATE VIEW history_pairs AS
SELECT runs.id AS run_id, runs.started_at, {epoch} AS started_epoch_s, runs.config_name, runs.host_fingerprint,
       runs.hostname, runs.git_sha, runs.status AS run_status,
       runs.pricing_table, runs.pricing_published, runs.pricing_retrieved, runs.pricing_sha256,
       r.workload, r.preset, r.batch_size, r.configuration,
       r.workload || CASE WHEN r.preset = '' THEN '' ELSE '/' || r.preset END || '/' || CAST(r.batch_size AS TEXT) || ' ' || r.configuration AS pair,
       r.baseline, r.status, r.n,
       r.mean_ms, r.mean_ci95_lo_ms, r.mean_ci95_hi_ms,
       r.median_ms, r.ci95_lo_ms AS median_ci95_lo_ms, r.ci95_hi_ms AS median_ci95_hi_ms,
       r.usd_per_hour, r.usd_per_step, r.usd_per_step_ci95_lo, r.usd_per_step_ci95_hi,
       r.improvement_pct, r.decision,
       (SELECT count(*) FROM change_points c WHERE c.run_id = runs.id AND c.config_name = runs.config_name
          AND c.host_fingerprint = runs.host_fingerprint AND (c.workload = '' OR (c.workload = r.workload AND
          c.preset = r.preset AND c.batch_size = r.batch_size AND c.configuration = r.configuration))) AS change_points
FROM results r JOIN runs ON runs.id = r.run_id;
CREATE VIEW history_events AS
SELECT runs.id AS run_id, runs.started_at, {epoch} AS started_epoch_s, c.config_name, c.host_fingerprint,
       c.source AS kind, c.metric,
       CASE WHEN c.workload = '' THEN 'every pair' ELSE c.workload || CASE WHEN c.preset = '' THEN '' ELSE '/' || c.preset END
         || '/' || CAST(c.batch_size AS TEXT) || ' ' || c.configuration END AS pair,
       c.before, c.after, c.note AS text
FROM change_points c JOIN runs ON runs.id = c.run_id
UNION ALL
SELECT p.id, p.started_at, p.started_epoch_s, p.config_name, p.host_fingerprint, 'price_table', 'usd_per_step', 'every pair',
       CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION), p.previous_table || ' -> ' || p.table_label
FROM (SELECT runs.id, runs.started_at, {epoch} AS started_epoch_s, runs.config_name, runs.host_fingerprint,
             runs.pricing_table || ' (published ' || runs.pricing_published || ', retrieved ' || runs.pricing_retrieved ||
               ', sha256 ' || runs.pricing_sha256 || ')' AS table_label,
             LAG(runs.pricing_table || ' (published ' || runs.pricing_published || ', retrieved ' || runs.pricing_retrieved ||
               ', sha256 ' || runs.pricing_sha256 || ')') OVER (PARTITION BY runs.config_name, runs.host_fingerprint
               ORDER BY runs.started_at, runs.id) AS previous_table
      FROM runs WHERE runs.status = 'complete') p
WHERE p.previous_table IS NOT NULL AND p.previous_table <> p.table_label;
)sql";
  for (size_t at; (at = sql.find("{epoch}")) != std::string::npos;) sql.replace(at, 7, epoch);
  return sql;
}

class HistoryBackend {
 public:
  virtual ~HistoryBackend() = default;
  /// How messages name the database: the file path, or postgresql://user@host:port/db.
  virtual const std::string& name() const = 0;
  /// "sqlite" | "postgresql".
  virtual const char* kind() const = 0;
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlParam>& params = {}) = 0;
  /// Several statements, no parameters (DDL).
  virtual void exec(const std::string& sql) = 0;
  virtual void begin(bool writer) = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  virtual int schema_version() = 0;
  /// Inside a transaction: records `version` as the schema version.
  virtual void set_schema_version(int version) = 0;
  virtual void lock_schema() = 0;
  /// The DDL taking the schema from `from` to `from + 1`.
  virtual std::string migration(int from) const = 0;
  /// True when the database holds no table at all (a fresh one).
  virtual bool empty() = 0;
};

/// True for a postgresql:// (or postgres://) URI, false for a file path.
bool is_postgres_uri(const std::string& db);
/// The URI without its password or query: postgresql://user@host:port/db.
std::string redact_postgres_uri(const std::string& uri);

/// Why libpq cannot read `uri` as a connection URI (e.g. "invalid percent-encoded token"; never
/// the URI's text, which may hold a password), or nullopt when it can.
std::optional<std::string> postgres_uri_problem(const std::string& uri);

std::unique_ptr<HistoryBackend> open_sqlite_backend(const std::string& path, bool create);
/// Connects (connect_timeout 10 s unless PGCONNECT_TIMEOUT or the URI says otherwise; every
/// statement bounded by statement_timeout: PPERF_HISTORY_STATEMENT_TIMEOUT_S, default 60 s,
/// unless PGOPTIONS, the URI or the role set one). A wrong
/// password, a database that does not exist: InputError. A server down or unreachable:
/// std::runtime_error, after at most the connect timeout.
std::unique_ptr<HistoryBackend> open_postgres_backend(const std::string& uri);

}  // namespace pperf
