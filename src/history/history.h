#pragma once
// The history store of finished runs: an embedded SQLite file, or a PostgreSQL server a fleet
// shares (a postgresql:// URI); docs/history.md documents the tables, the same on both. Each run
// is kept whole (its results JSON, byte for byte as recorded) beside queryable columns, so
// `history show` gives the file back and dashboards use plain SQL.
// Guarantees: the schema carries its version (SQLite: PRAGMA user_version; PostgreSQL: the table
// pperf_meta) and is migrated forward on open; a run is recorded in one transaction (a killed
// recorder leaves nothing half-written); concurrent recorders all land, and one results file
// recorded twice (even at once, from two hosts) is one run. The dialects differ behind
// HistoryBackend (src/history/backend.h).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/history/backend.h"

namespace pperf {

/// The schema version this pperf writes (PRAGMA user_version after migrating).
constexpr int kHistorySchemaVersion = 4;

/// Short hex id of the facts that make step times comparable across runs: CPU model, logical
/// CPUs, BLAS library and libtorch version (not the hostname: CI runners of one kind pool).
std::string host_fingerprint(const nlohmann::json& host);

/// `PPERF_HISTORY` if set and not empty (a file path or a postgresql:// URI), else results/history.sqlite.
/// InputError naming `flag` (e.g. "--db") when `db` is a postgresql:// URI libpq cannot read:
/// bad input, not a server that is down.
void check_history_db(const std::string& db, const std::string& flag);
std::string default_history_path();

struct HistoryRun {
  int64_t id = 0;
  std::string recorded_at, started_at, finished_at;
  std::string config_name, config_sha256, git_sha, tool_version, command, status;
  std::string host_fingerprint, hostname;
  std::string pricing_table, pricing_retrieved;
  std::string pricing_sha256, pricing_published;  // "" when recorded before schema 3 / not published
  std::string results_sha256;  // of the results text as recorded
  int64_t results = 0;  // number of result rows
};

nlohmann::json to_json(const HistoryRun& run);

/// The price table a run was priced with: name, file sha256, publication date, retrieved date.
struct PriceTableIdentity {
  std::string name, sha256, published, retrieved;
  bool operator==(const PriceTableIdentity& o) const {
    return name == o.name && sha256 == o.sha256 && published == o.published && retrieved == o.retrieved;
  }
  bool operator!=(const PriceTableIdentity& o) const { return !(*this == o); }
  std::string label() const;  // "name (published D, sha256 0123456789ab)"
};

/// One point of a series: the figure of one pair in one run.
struct SeriesPoint {
  int64_t run_id = 0;
  std::string started_at, git_sha;
  double median_ms = 0;
  std::optional<double> usd_per_step;
  PriceTableIdentity price_table;
};

/// A pair's key within a config: what a series follows across runs.
struct PairKey {
  std::string workload, preset;
  int64_t batch_size = 0;
  std::string configuration;
  bool operator<(const PairKey& o) const;
  bool operator==(const PairKey& o) const;
  std::string label() const;  // workload/preset/batch configuration
};
PairKey pair_key(const Result& r);

/// A change point stored in the database: detected by `history changes` or marked by hand.
struct StoredChangePoint {
  int64_t run_id = 0;  // first run of the new level
  std::string config_name, host_fingerprint, metric;  // metric: "median_ms" | "usd_per_step" | "all"
  PairKey pair;                                        // empty workload: every pair of the config
  std::optional<double> before, after;
  std::string source, note;                            // source: "detected" | "marked"
};

/// A `runs` row and its `results` rows, as stored (what `record` derives from a results file
/// and `copy_from` reads from another database).
struct ResultRow {
  std::string workload, preset;
  int64_t batch_size = 0;
  std::string configuration;
  bool baseline = false, measured = false;
  std::string status;
  std::optional<double> median_ms, ci95_lo_ms, ci95_hi_ms;
  int64_t n = 0;
  std::optional<double> usd_per_hour, usd_per_step, samples_per_s, improvement_pct;
  // Schema 4 on: what the dashboard views show beside the median.
  std::optional<double> mean_ms, mean_ci95_lo_ms, mean_ci95_hi_ms, usd_per_step_ci95_lo, usd_per_step_ci95_hi;
  std::optional<std::string> decision;  // the decision's verdict, on non-baseline results decided against a baseline
};
struct RunRow {
  std::string recorded_at, started_at;
  std::optional<std::string> finished_at;
  std::string config_name, config_path, config_sha256, git_sha, tool_version, command, status;
  std::string host_fingerprint, hostname, cpu_model;
  std::optional<int64_t> logical_cpus;
  std::string pricing_table, pricing_retrieved, currency, pricing_sha256, pricing_published;
  std::string results_json;
  std::vector<ResultRow> results;
};

class History {
 public:
  enum class Mode { read, create };
  /// Opens the database (`path`: a file, or a postgresql:// URI), creating it (and its
  /// directory) in Mode::create, and migrates its schema to `target_version` (tests pass a lower
  /// one to make an old database). Throws InputError naming the database (a URI without its
  /// password) when it does not exist or holds no pperf history (Mode::read), is not a pperf
  /// history, has a newer schema than this pperf knows, or refuses the credentials; a server
  /// that cannot be reached throws std::runtime_error within the connect timeout.
  History(const std::string& path, Mode mode, int target_version = kHistorySchemaVersion);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  /// How messages name the database: the file path, or postgresql://user@host:port/db.
  const std::string& path() const { return path_; }
  /// "sqlite" | "postgresql".
  const char* backend_kind() const;
  int schema_version() const;
  /// Whether `db` holds a pperf history (a file that exists; a database with pperf_meta).
  static bool exists(const std::string& db);

  struct Recorded {
    int64_t id = 0;
    bool already = false;  // the same results text was recorded before, as run `id`
  };
  /// Records a run: `text` is the results file's text, `report` what was read from it.
  /// One transaction; recording the same text twice returns the first id.
  Recorded record(const std::string& text, const RunReport& report);

  /// Runs, oldest first (by started_at, then id); `last` keeps the newest N.
  /// Every run of `from` (oldest id first, so ids keep their order) and its marked change
  /// points, each once: runs already here (same results sha256) and marks already here are
  /// counted, not doubled. Each run is one transaction.
  struct CopyCounts {
    int64_t runs_copied = 0, runs_present = 0, marks_copied = 0, marks_present = 0;
  };
  CopyCounts copy_from(const History& from);

  std::vector<HistoryRun> list(const std::optional<std::string>& config_name, std::optional<int64_t> last,
                               const std::optional<std::string>& host_fingerprint = std::nullopt,
                               bool complete_only = false) const;
  std::optional<HistoryRun> run(int64_t id) const;
  /// The results text exactly as recorded.
  std::optional<std::string> results_text(int64_t id) const;

  /// Every pair's median step time (and USD per step) across the complete runs of a config on
  /// one host, oldest first.
  std::vector<std::pair<PairKey, std::vector<SeriesPoint>>> series(const std::string& config_name,
                                                                   const std::string& host_fingerprint) const;
  /// The host fingerprints a config was recorded on.
  std::vector<std::string> fingerprints(const std::string& config_name) const;
  std::vector<std::string> config_names() const;

  /// Replaces the detected change points of (config, host) with `detected`; marked ones stay.
  void store_detected(const std::string& config_name, const std::string& host_fingerprint,
                      const std::vector<StoredChangePoint>& detected);
  /// Adds a change point by hand (source "marked").
  void mark(const StoredChangePoint& point);
  std::vector<StoredChangePoint> change_points(const std::string& config_name,
                                               const std::optional<std::string>& host_fingerprint) const;

 private:
  Recorded insert(const RunRow& row);
  std::unique_ptr<HistoryBackend> db_;
  std::string path_;
};

}  // namespace pperf
