#include "pricing/price_import.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "pricing/importers.h"

namespace pperf {

std::optional<ImportFormat> parse_import_format(const std::string& name) {
  if (name == "aws-offer") return ImportFormat::aws_offer;
  if (name == "aws-spot-history") return ImportFormat::aws_spot_history;
  if (name == "skypilot") return ImportFormat::skypilot;
  if (name == "spot-advisor") return ImportFormat::spot_advisor;
  return std::nullopt;
}

std::string to_string(ImportFormat format) {
  switch (format) {
    case ImportFormat::aws_offer: return "aws-offer";
    case ImportFormat::aws_spot_history: return "aws-spot-history";
    case ImportFormat::skypilot: return "skypilot";
    case ImportFormat::spot_advisor: return "spot-advisor";
  }
  return "";
}

namespace importers {

/// A plain decimal ("32.7726000000", "8", "8.0"): what providers write prices and counts as.
std::optional<double> decimal(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos || std::count(s.begin(), s.end(), '.') > 1 ||
      s.front() == '.' || s.back() == '.')
    return std::nullopt;
  return std::strtod(s.c_str(), nullptr);
}

double positive_decimal_at(const JsonView& v, const std::string& what) {
  const std::string s = v.as_string();
  const auto d = decimal(s);
  if (!d || *d <= 0) v.fail("expected " + what + " as a positive decimal string, got '" + s + "'");
  return *d;
}

/// "1152 GiB", "1,952 GiB", "16 GB", "40": the number before the unit.
std::optional<double> quantity(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  for (const char* unit : {" GiB", " GB", "GiB", "GB"})
    if (s.size() > std::char_traits<char>::length(unit) && s.compare(s.size() - std::char_traits<char>::length(unit), std::string::npos, unit) == 0)
      s.erase(s.size() - std::char_traits<char>::length(unit));
  return decimal(s);
}

bool is_whole(double x) { return std::floor(x) == x; }

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

bool valid_date(const std::string& s) { return days_between(s, s).has_value(); }

bool wanted(const ImportOptions& o, const std::string& region) {
  return o.regions.empty() || std::find(o.regions.begin(), o.regions.end(), region) != o.regions.end();
}

/// The publication date of a source that records none: the --published the user gave.
std::string declared_published(const ImportOptions& o, const ImportFile& f) {
  if (o.published.empty())
    throw InputError("--published", "", base_name(f.path) + ": a " + to_string(o.format) +
                                            " file records no publication date: give --published YYYY-MM-DD (or unknown)");
  if (o.published == "unknown") return "";
  if (!valid_date(o.published)) throw InputError("--published", "", "expected YYYY-MM-DD or unknown, got '" + o.published + "'");
  return o.published;
}

/// Every --region must be in some file: a typo among several would otherwise vanish silently.
void require_regions_found(const ImportOptions& o, const std::set<std::string>& found) {
  const std::vector<std::string> names(found.begin(), found.end());
  for (const auto& region : o.regions)
    if (!found.count(region))
      throw InputError("pperf prices import", "--region",
                       fmt::format("'{}' is in none of the files ({} regions){}", region, names.size(), did_you_mean(region, names)));
}

InstanceSpec& row_for(PriceTable& table, const std::string& region, const std::string& type, const ImportOptions& o) {
  InstanceSpec& spec = table.regions[region][type];
  spec.type = type;
  if (!o.row_source.empty()) spec.source = o.row_source;
  return spec;
}

/// The file's text as JSON; a syntax error is an InputError naming the file.
nlohmann::json parse_json(const ImportFile& f) {
  try {
    return nlohmann::json::parse(f.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(f.path, "", std::string("not JSON: ") + e.what());
  }
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace importers

using namespace importers;

namespace {

nlohmann::ordered_json row_json(const InstanceSpec& s) {
  nlohmann::ordered_json j;
  j["vcpus"] = s.vcpus;
  j["memory_gib"] = s.memory_gib;
  if (is_whole(s.accelerators)) j["accelerators"] = static_cast<int64_t>(s.accelerators);  // 8, not 8.0
  else j["accelerators"] = s.accelerators;
  if (!s.accelerator_model.empty()) j["accelerator_model"] = s.accelerator_model;
  if (s.on_demand) j["on_demand"] = *s.on_demand;
  if (s.link_gbps) {
    j["link_gbps"] = *s.link_gbps;
    j["link_basis"] = s.link_basis;
  }
  const SpotPrice& p = s.spot;
  if (p.avg || p.median || p.min) {
    nlohmann::ordered_json spot;
    if (p.avg) spot["avg"] = *p.avg;
    if (p.min) spot["min"] = *p.min;
    if (p.median) spot["median"] = *p.median;
    if (p.max) spot["max"] = *p.max;
    if (!p.zones.empty()) {
      nlohmann::ordered_json zones = nlohmann::ordered_json::object();
      for (const auto& [zone, z] : p.zones) {
        if (z.min == z.max) zones[zone] = z.min;
        else zones[zone] = {{"min", z.min}, {"median", z.median}, {"max", z.max}};
      }
      spot["zones"] = zones;
    }
    if (!p.window_from.empty()) spot["window"] = {{"from", p.window_from}, {"to", p.window_to}};
    j["spot"] = spot;
  }
  if (!s.source.empty()) j["source"] = s.source;
  return j;
}

}  // namespace

ImportReport import_prices(PriceTable& table, const std::vector<ImportFile>& files, const ImportOptions& options) {
  if (!valid_date(options.imported)) throw InputError("--imported", "", "expected YYYY-MM-DD, got '" + options.imported + "'");
  ImportReport report;
  std::set<std::string> regions_in_files;
  for (const auto& f : files) {
    TableSource source{base_name(f.path), to_string(options.format), sha256_hex(f.text), "", options.imported, {}};
    switch (options.format) {
      case ImportFormat::aws_offer: source.published = import_aws_offer(table, f, options, regions_in_files, source.notes); break;
      case ImportFormat::aws_spot_history: source.published = import_spot_history(table, f, options, regions_in_files); break;
      case ImportFormat::skypilot: {
        auto imported = import_skypilot(table, f, options, regions_in_files);
        source.published = imported.published;
        source.notes = std::move(imported.notes);
        break;
      }
      case ImportFormat::spot_advisor:
        throw InputError("--format", "", "spot-advisor files make an interruption table, not a price table");
    }
    for (const auto& note : source.notes) report.warnings.push_back(source.file + ": " + note);
    table.sources.push_back(std::move(source));
  }
  require_regions_found(options, regions_in_files);
  table.published.clear();
  bool unknown = false;
  for (const auto& s : table.sources) {
    if (s.published.empty()) unknown = true;
    else if (table.published.empty() || s.published < table.published) table.published = s.published;
  }
  if (unknown) table.published.clear();
  table.retrieved = options.imported;
  return report;
}

void apply_link_figures(PriceTable& table, const ImportFile& f, const std::string& imported) {
  const nlohmann::json doc = parse_json(f);
  const JsonView root(doc, f.path);
  root.expect_object({"source", "published", "types"});
  TableSource source{base_name(f.path), "links", sha256_hex(f.text), "", imported, {}};
  if (auto published = root.find("published"); published && !published->raw().is_null()) source.published = published->as_string();
  const JsonView types = root.at("types");
  std::map<std::string, std::pair<double, std::string>> figures;
  for (const auto& type : types.keys()) {
    const JsonView row = types.at(type);
    row.expect_object({"gbps", "basis"});
    figures[type] = {row.at("gbps").as_positive_number(), row.at("basis").as_string()};
    if (figures[type].second.empty()) row.at("basis").fail("say which figure this is and where it is published");
  }
  std::vector<std::string> without;
  for (auto& [region, rows] : table.regions)
    for (auto& [type, spec] : rows) {
      auto it = figures.find(type.rfind("ml.", 0) == 0 ? type.substr(3) : type);
      if (it == figures.end()) {
        if (!spec.link_gbps) without.push_back(type);
        continue;
      }
      spec.link_gbps = it->second.first;
      spec.link_basis = it->second.second;
    }
  std::sort(without.begin(), without.end());
  without.erase(std::unique(without.begin(), without.end()), without.end());
  if (!without.empty())
    source.notes.push_back(fmt::format("no link figure for {}: the file gives none (e.g. only a burst \"up to\" figure is published)",
                                       fmt::join(without, ", ")));
  table.sources.push_back(std::move(source));
  if (const auto it = table.regions.find(table.region); it != table.regions.end()) table.instances = it->second;
}

std::string price_table_json(const PriceTable& t) {
  nlohmann::ordered_json j;
  j["schema_version"] = 2;
  j["name"] = t.name;
  j["provider"] = t.provider;
  j["service"] = t.service;
  j["currency"] = t.currency;
  j["source"] = t.source;
  j["published"] = t.published.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(t.published);
  j["retrieved"] = t.retrieved;
  j["notes"] = t.notes;
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const auto& s : t.sources)
    sources.push_back({{"file", s.file},
                       {"format", s.format},
                       {"sha256", s.sha256},
                       {"published", s.published.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.published)},
                       {"imported", s.imported}});
  for (size_t i = 0; i < t.sources.size(); ++i)
    if (!t.sources[i].notes.empty()) sources[i]["notes"] = t.sources[i].notes;
  j["sources"] = sources;
  // Regions and rows are written one row at a time, as dump(2) would lay them out: a table of
  // 100k types never exists as one JSON tree.
  j["regions"] = nullptr;
  std::string out = j.dump(2);
  out.erase(out.rfind("null"));
  auto indented = [](const nlohmann::ordered_json& v, const std::string& pad) {
    std::string text = v.dump(2);
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) text.insert(at + 1, pad);
    return text;
  };
  out += "{";
  for (auto region = t.regions.begin(); region != t.regions.end(); ++region) {
    out += (region == t.regions.begin() ? "\n    " : ",\n    ") + nlohmann::ordered_json(region->first).dump() + ": {";
    for (auto row = region->second.begin(); row != region->second.end(); ++row)
      out += (row == region->second.begin() ? "\n      " : ",\n      ") + nlohmann::ordered_json(row->first).dump() + ": " +
             indented(row_json(row->second), "      ");
    out += region->second.empty() ? "}" : "\n    }";
  }
  out += t.regions.empty() ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

}  // namespace pperf
