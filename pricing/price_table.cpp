#include "pricing/price_table.h"

#include <filesystem>

#include "bench/core/data_dir.h"
#include "bench/core/json_view.h"

namespace pperf {

const InstanceSpec* PriceTable::find(const std::string& type) const {
  auto it = instances.find(type);
  return it == instances.end() ? nullptr : &it->second;
}

std::vector<std::string> PriceTable::types() const {
  std::vector<std::string> out;
  for (const auto& [type, _] : instances) out.push_back(type);
  return out;
}

std::optional<Quote> quote(const InstanceSpec& spec, Market market) {
  if (market == Market::on_demand) {
    if (!spec.on_demand) return std::nullopt;
    return Quote{*spec.on_demand, "on_demand"};
  }
  if (spec.spot.avg) return Quote{*spec.spot.avg, "spot_avg"};
  if (spec.spot.min && spec.spot.max) return Quote{(*spec.spot.min + *spec.spot.max) / 2, "spot_mid"};
  return std::nullopt;
}

std::string resolve_price_table_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.find('/') != std::string::npos || name_or_path.size() > 5 &&
      name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0)
    return name_or_path;
  return (fs::path(data_dir()) / "pricing" / "tables" / (name_or_path + ".json")).string();
}

namespace {
std::optional<double> optional_price(const JsonView& row, const std::string& key) {
  auto v = row.find(key);
  if (!v || v->raw().is_null()) return std::nullopt;
  return v->as_positive_number();
}
}  // namespace

PriceTable load_price_table(const std::string& name_or_path) {
  const std::string path = resolve_price_table_path(name_or_path);
  const nlohmann::json doc = read_json_file(path);
  JsonView root(doc, path);
  root.expect_object({"schema_version", "name", "provider", "service", "source", "retrieved",
                      "region", "currency", "notes", "instances"});
  if (root.at("schema_version").as_int() != 1) root.at("schema_version").fail("only version 1 is known");

  PriceTable table;
  table.path = path;
  table.name = root.at("name").as_string();
  table.source = root.at("source").as_string();
  table.retrieved = root.at("retrieved").as_string();
  table.region = root.at("region").as_string();
  table.currency = root.at("currency").as_string();
  table.notes = root.string_or("notes", "");
  root.string_or("provider", "");
  root.string_or("service", "");
  if (table.retrieved.size() != 10 || table.retrieved[4] != '-' || table.retrieved[7] != '-')
    root.at("retrieved").fail("expected a date YYYY-MM-DD");

  JsonView instances = root.at("instances");
  for (const auto& type : instances.keys()) {
    JsonView row = instances.at(type);
    row.expect_object({"vcpus", "memory_gib", "accelerators", "accelerator_model", "on_demand",
                       "spot", "source"});
    InstanceSpec spec;
    spec.type = type;
    spec.vcpus = static_cast<int>(row.at("vcpus").as_positive_int());
    spec.memory_gib = row.at("memory_gib").as_positive_number();
    if (auto a = row.find("accelerators")) spec.accelerators = static_cast<int>(a->as_non_negative_int());
    spec.accelerator_model = row.string_or("accelerator_model", "");
    spec.on_demand = optional_price(row, "on_demand");
    if (auto spot = row.find("spot"); spot && !spot->raw().is_null()) {
      spot->expect_object({"avg", "min", "max"});
      spec.spot = {optional_price(*spot, "avg"), optional_price(*spot, "min"),
                   optional_price(*spot, "max")};
      if (spec.spot.min && spec.spot.max && *spec.spot.min > *spec.spot.max)
        spot->at("min").fail("spot min is above spot max");
    }
    spec.source = row.string_or("source", "");
    if (!spec.on_demand && !quote(spec, Market::spot)) row.fail("has neither an on_demand nor a spot price");
    table.instances.emplace(type, std::move(spec));
  }
  if (table.instances.empty()) instances.fail("no instances");
  return table;
}

}  // namespace pperf
