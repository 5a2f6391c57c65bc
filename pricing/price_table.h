#pragma once
// Price tables (pricing/tables/*.json, or a file `pperf prices import` wrote): provenance plus
// per-region, per-instance specs and prices. Loading validates the whole file; a bad table is an
// InputError naming file + JSON pointer. docs/prices.md documents the format.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace pperf {

/// One availability zone's spot price: one figure (a catalog snapshot) or min/median/max over a
/// price-history window.
struct ZonePrice {
  double min = 0, median = 0, max = 0;
};

struct SpotPrice {
  std::optional<double> avg, median, min, max;  // USD/h; min/max span zones (and the window)
  std::map<std::string, ZonePrice> zones;        // by zone; empty when the source names none
  std::string window_from, window_to;            // price-history window (UTC), "" for a snapshot
};

struct InstanceSpec {
  std::string type;
  int vcpus = 0;
  double memory_gib = 0;
  double accelerators = 0;            // may be a fraction: a g6f.xlarge sells 1/8 of an L4
  std::string accelerator_model;        // "" when none
  std::optional<double> on_demand;      // USD/h
  SpotPrice spot;
  std::string source;                   // overrides the table's source for this row, may be ""
  /// The instance's network bandwidth, Gbit/s each way, where the provider publishes a sustained
  /// figure: a fixed networkPerformance ("25 Gigabit"), or the baseline of an "up to" one (never
  /// its burst). Unset: the table knows none. link_basis says which figure, and where from.
  std::optional<double> link_gbps;
  std::string link_basis;
};

/// A provider's network figure as AWS offer files and DescribeInstanceTypes word it
/// (networkPerformance): "25 Gigabit", "Up to 10 Gigabit", "400 Gigabit", "4x 100 Gigabit".
struct NetworkPerformance {
  double gbps = 0;     // the figure's number (for "up to": the burst ceiling)
  bool burst = false;  // "Up to ...": a burst ceiling, not a sustained bandwidth
};
/// nullopt for words without a figure ("Low", "Moderate", "High") and anything else.
std::optional<NetworkPerformance> parse_network_performance(const std::string& text);

/// A file a table was imported from (`pperf prices import`).
struct TableSource {
  std::string file;       // base name as given to the importer
  std::string format;     // aws-offer | aws-spot-history | skypilot
  std::string sha256;     // of the file's bytes
  std::string published;  // the source's own date (YYYY-MM-DD), "" when it records none
  std::string imported;   // YYYY-MM-DD
  /// What the import did beside copying prices: rows it skipped (counted, with a first example),
  /// rows it joined (GCP's attached accelerators). Empty for a file read as it is.
  std::vector<std::string> notes;
};

using RegionInstances = std::map<std::string, InstanceSpec>;  // by instance type

struct PriceTable {
  int schema_version = 2;  // of the file read: 1 (one region, hand-written) or 2 (regions, sources)
  std::string name;       // e.g. "aws-ec2-us-east-1"
  std::string path;       // file it was read from
  std::string sha256;     // of the file's bytes: with name and published, the table's identity
  std::string provider, service;
  std::string source;     // where the figures come from
  std::string published;  // when the figures were in effect at the source (YYYY-MM-DD); "" unknown
  std::string retrieved;  // date of the snapshot/import, YYYY-MM-DD
  std::string region;     // the region chosen (load_price_table's `region`)
  std::string currency;
  std::string notes;
  std::vector<TableSource> sources;
  std::map<std::string, RegionInstances> regions;  // every region of the file
  RegionInstances instances;                       // the chosen region's

  const InstanceSpec* find(const std::string& type) const;
  std::vector<std::string> types() const;
  std::vector<std::string> region_names() const;
};

/// A price for one instance of a type in a market, and what it is based on.
struct Quote {
  double usd_per_hour = 0;
  std::string basis;  // "on_demand", "spot_avg", "spot_median", "spot_mid", "override"
  /// Spot: the lowest and highest price the table holds (zones, history window); null for a
  /// point price (on-demand, or a spot row with one figure).
  std::optional<std::array<double, 2>> range;
  std::string cheapest_zone, dearest_zone;  // "" when the table names no zones
};

/// On-demand price, or spot avg, else median, else the midpoint of min..max (with the range).
/// nullopt when the table has none.
std::optional<Quote> quote(const InstanceSpec& spec, Market market);

/// `name_or_path` is a table name under pricing/tables/ or a path to a JSON file.
std::string resolve_price_table_path(const std::string& name_or_path);
/// Reads and validates every region of a table; `region` and `instances` stay empty.
PriceTable read_price_table(const std::string& name_or_path);
/// Loads the table and chooses `region` ("" = the table's only region). A region the table does
/// not hold is an InputError naming the regions it has.
PriceTable load_price_table(const std::string& name_or_path, const std::string& region = "");

/// Days from `date` (YYYY-MM-DD) to `today` (YYYY-MM-DD); nullopt when either is not a date.
std::optional<int64_t> days_between(const std::string& date, const std::string& today);

/// A warning line when the table's prices are older than `max_age_days` (measured from its
/// publication date, `today`), or when it does not record one; "" when fresh.
std::string staleness_warning(const PriceTable& table, int64_t max_age_days, const std::string& today);

/// One price that differs between two tables (or exists in one only).
struct PriceChange {
  std::string region, type, what;  // what: "on_demand" | "spot min" | "spot median" | "spot max" | "spot avg"
  std::optional<double> before, after;  // USD/h; null when absent on that side
};
/// Every changed, added or removed price, by region, type, then field.
std::vector<PriceChange> diff_tables(const PriceTable& before, const PriceTable& after);

}  // namespace pperf
