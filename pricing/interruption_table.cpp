#include "pricing/interruption_table.h"

#include <cmath>

#include "src/core/json_view.h"
#include "pricing/price_table.h"

namespace pperf {

double interruptions_per_month_from_share(double value_pct) { return -std::log1p(-value_pct / 100); }

std::optional<InterruptionRate> InterruptionTable::find(const std::string& region, const std::string& type) const {
  auto r = regions.find(region);
  if (r == regions.end()) return std::nullopt;
  auto t = r->second.find(type);
  if (t == r->second.end()) return std::nullopt;
  return InterruptionRate{t->second, interruptions_per_month_from_share(buckets.at(t->second).value_pct)};
}

InterruptionTable load_interruption_table(const std::string& name_or_path) {
  // Same lookup as price tables: a bare name lives under pricing/tables/.
  const std::string path = resolve_price_table_path(name_or_path);
  const nlohmann::json doc = read_json_file(path);
  JsonView root(doc, path);
  root.expect_object({"schema_version", "name", "provider", "source", "snapshot", "retrieved", "notes", "sources",
                      "buckets", "regions"});
  if (root.at("schema_version").as_int() != 1) root.at("schema_version").fail("only version 1 is known");
  InterruptionTable table;
  table.path = path;
  table.name = root.at("name").as_string();
  table.source = root.at("source").as_string();
  if (auto snapshot = root.find_value("snapshot")) table.snapshot = snapshot->as_string();  // null: not recorded
  table.retrieved = root.at("retrieved").as_string();
  root.string_or("provider", "");
  root.string_or("notes", "");
  for (const auto& b : root.at("buckets").items()) {
    b.expect_object({"label", "from_pct", "to_pct", "value_pct"});
    InterruptionBucket bucket{b.at("label").as_string(), b.at("value_pct").as_number()};
    const double from = b.at("from_pct").as_number();
    const auto to = b.find_value("to_pct");
    if (bucket.value_pct < from || (to && bucket.value_pct > to->as_number()) || bucket.value_pct >= 100 ||
        !std::isfinite(bucket.value_pct))
      b.at("value_pct").fail("must lie in the bucket [from_pct, to_pct] and below 100");
    if (!table.buckets.emplace(bucket.label, bucket).second) b.at("label").fail("duplicate bucket '" + bucket.label + "'");
  }
  if (table.buckets.empty()) root.at("buckets").fail("no buckets");
  const JsonView regions = root.at("regions");
  for (const auto& region : regions.keys()) {
    const JsonView types = regions.at(region);
    for (const auto& type : types.keys()) {
      const JsonView label = types.at(type);
      std::vector<std::string> known;
      for (const auto& [l, _] : table.buckets) known.push_back(l);
      table.regions[region][type] = label.as_choice(known);
    }
  }
  return table;
}

}  // namespace pperf
