// The Spot Instance Advisor's data file -> an interruption table.
#include "pricing/price_import.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "pricing/importers.h"

namespace pperf {

using namespace importers;

std::string import_spot_advisor(const std::vector<ImportFile>& files, const ImportOptions& options, const std::string& name,
                                const std::string& source, const std::string& notes) {
  if (files.size() != 1) throw InputError("pperf prices import", "", "--format spot-advisor takes one file");
  if (!valid_date(options.imported)) throw InputError("--imported", "", "expected YYYY-MM-DD, got '" + options.imported + "'");
  const ImportFile& f = files[0];
  const std::string published = declared_published(options, f);
  const nlohmann::json doc = parse_json(f);
  const JsonView root(doc, f.path);
  // ranges[]: {index, label, dots, max}: the buckets, each up to `max` percent.
  std::map<int64_t, std::pair<std::string, double>> ranges;
  for (const auto& r : root.at("ranges").items()) {
    const int64_t index = r.at("index").as_non_negative_int();
    const double max = r.at("max").as_number();
    if (!ranges.emplace(index, std::make_pair(r.at("label").as_string(), max)).second) r.at("index").fail("duplicate range index");
  }
  if (ranges.empty()) root.at("ranges").fail("no ranges");
  // A bucket's bounds are its label's ("<5%", "5-10%", ">20%"), as the Advisor shows them; `max`
  // (5, 11, 16, 22, 100 in AWS's file) only sizes the page's bar, and is used when a label has no
  // bounds to read.
  nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
  double from = 0, last_width = 0;
  for (auto it = ranges.begin(); it != ranges.end(); ++it) {
    const auto& [label, max] = it->second;
    std::string bounds = label;
    bounds.erase(std::remove_if(bounds.begin(), bounds.end(), [](char c) { return c == '%' || c == ' '; }), bounds.end());
    const size_t dash = bounds.find('-');
    std::optional<double> label_to;
    if (bounds.rfind("<", 0) == 0) label_to = decimal(bounds.substr(1));
    else if (dash != std::string::npos && decimal(bounds.substr(0, dash)) == from) label_to = decimal(bounds.substr(dash + 1));
    const bool open = std::next(it) == ranges.end() && (label.rfind(">", 0) == 0 || max >= 100);
    const double to = label_to.value_or(max);
    if (!open && to <= from)
      throw InputError(f.path, "/ranges", fmt::format("range {} ('{}') ends at {} %, not above the previous one's {} %", it->first, label, to, from));
    // A closed bucket counts as its midpoint; the open last one (">20%") as its lower bound
    // plus the width of the bucket before it.
    const double value = open ? from + last_width : (from + to) / 2;
    buckets.push_back({{"label", label},
                       {"from_pct", from},
                       {"to_pct", open ? nlohmann::ordered_json() : nlohmann::ordered_json(to)},
                       {"value_pct", value}});
    last_width = to - from;
    from = to;
  }
  nlohmann::ordered_json regions = nlohmann::ordered_json::object();
  const JsonView advisor = root.at("spot_advisor");
  const auto advisor_regions = advisor.keys();
  require_regions_found(options, {advisor_regions.begin(), advisor_regions.end()});
  for (const auto& region : advisor_regions) {
    if (!wanted(options, region)) continue;
    const auto linux_rows = advisor.at(region).find("Linux");
    if (!linux_rows) continue;
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    for (const auto& type : linux_rows->keys()) {
      const JsonView r = linux_rows->at(type).at("r");
      const auto it = ranges.find(r.as_non_negative_int());
      if (it == ranges.end()) r.fail(fmt::format("range index {} is not in /ranges", r.as_int()));
      types[type] = it->second.first;
    }
    regions[region] = types;
  }
  if (regions.empty())
    throw InputError(f.path, "/spot_advisor", "no Linux rows" + (options.regions.empty() ? std::string() : fmt::format(" in {}", fmt::join(options.regions, ", "))));
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["name"] = name;
  j["provider"] = "aws";
  j["source"] = source;
  j["snapshot"] = published.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(published);
  j["retrieved"] = options.imported;
  j["notes"] = notes;
  j["sources"] = nlohmann::ordered_json::array(
      {{{"file", base_name(f.path)}, {"format", "spot-advisor"}, {"sha256", sha256_hex(f.text)},
        {"published", j["snapshot"]}, {"imported", options.imported}}});
  j["buckets"] = buckets;
  j["regions"] = regions;
  return j.dump(2) + "\n";
}

}  // namespace pperf
