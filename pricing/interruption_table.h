#pragma once
// Pinned Spot interruption rates (pricing/tables/aws-spot-interruptions.json): the bucket a
// provider publishes per instance type and region, and the value of each bucket the model uses.
// Loading validates the whole file; a bad table is an InputError naming file + JSON pointer.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pperf {

struct InterruptionBucket {
  std::string label;           // "<5%", "5-10%", ...
  double value_pct = 0;        // share of instances interrupted in a month, as used
};

struct InterruptionRate {
  std::string bucket;              // the published bucket
  double interruptions_per_month;  // per instance: -ln(1 - value_pct / 100)
};

struct InterruptionTable {
  std::string name, path, source, snapshot, retrieved;
  std::map<std::string, InterruptionBucket> buckets;  // by label
  std::map<std::string, std::map<std::string, std::string>> regions;  // region -> type -> label

  /// nullopt when the table has no bucket for the type in the region.
  std::optional<InterruptionRate> find(const std::string& region, const std::string& type) const;
};

/// The default table's name (under pricing/tables/).
inline const char* kDefaultInterruptionTable = "aws-spot-interruptions";

/// Poisson reading of a monthly share: P(at least one interruption in a month) = share.
double interruptions_per_month_from_share(double value_pct);

/// `name_or_path`: a table name under pricing/tables/ or a path to a JSON file.
InterruptionTable load_interruption_table(const std::string& name_or_path);

}  // namespace pperf
