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
  virtual const char* migration(int from) const = 0;
  /// True when the database holds no table at all (a fresh one).
  virtual bool empty() = 0;
};

/// True for a postgresql:// (or postgres://) URI, false for a file path.
bool is_postgres_uri(const std::string& db);
/// The URI without its password or query: postgresql://user@host:port/db.
std::string redact_postgres_uri(const std::string& uri);

std::unique_ptr<HistoryBackend> open_sqlite_backend(const std::string& path, bool create);
/// Connects (connect_timeout 10 s unless PGCONNECT_TIMEOUT or the URI says otherwise; every
/// statement bounded by statement_timeout: PPERF_HISTORY_STATEMENT_TIMEOUT_S, default 60 s,
/// unless PGOPTIONS, the URI or the role set one). A wrong
/// password, a database that does not exist: InputError. A server down or unreachable:
/// std::runtime_error, after at most the connect timeout.
std::unique_ptr<HistoryBackend> open_postgres_backend(const std::string& uri);

}  // namespace pperf
