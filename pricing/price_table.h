#pragma once
// Pinned price tables (pricing/tables/*.json): provenance plus per-instance specs and prices.
// Loading validates the whole file; a bad table is an InputError naming file + JSON pointer.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/result.h"

namespace pperf {


struct SpotPrice {
  std::optional<double> avg, min, max;  // USD/h; min/max span the snapshot's availability zones
};

struct InstanceSpec {
  std::string type;
  int vcpus = 0;
  double memory_gib = 0;
  int accelerators = 0;
  std::string accelerator_model;        // "" when none
  std::optional<double> on_demand;      // USD/h
  SpotPrice spot;
  std::string source;                   // overrides the table's source for this row, may be ""
};

struct PriceTable {
  std::string name;       // e.g. "aws-ec2-us-east-1"
  std::string path;       // file it was read from
  std::string source;     // where the figures come from
  std::string retrieved;  // date of the snapshot, YYYY-MM-DD
  std::string region;
  std::string currency;
  std::string notes;
  std::map<std::string, InstanceSpec> instances;

  const InstanceSpec* find(const std::string& type) const;
  std::vector<std::string> types() const;
};

/// A price for one instance of a type in a market, and what it is based on.
struct Quote {
  double usd_per_hour = 0;
  std::string basis;  // "on_demand", "spot_avg", "spot_mid", "override"
};

/// On-demand price, or spot avg (else the midpoint of min..max). nullopt when the table has none.
std::optional<Quote> quote(const InstanceSpec& spec, Market market);

/// `name_or_path` is a table name under pricing/tables/ or a path to a JSON file.
std::string resolve_price_table_path(const std::string& name_or_path);
PriceTable load_price_table(const std::string& name_or_path);

}  // namespace pperf
