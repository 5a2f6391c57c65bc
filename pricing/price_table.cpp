#include "pricing/price_table.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/core/data_dir.h"
#include "src/core/json_view.h"

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

std::vector<std::string> PriceTable::region_names() const {
  std::vector<std::string> out;
  for (const auto& [r, _] : regions) out.push_back(r);
  return out;
}

std::optional<Quote> quote(const InstanceSpec& spec, Market market) {
  if (market == Market::on_demand) {
    if (!spec.on_demand) return std::nullopt;
    return Quote{*spec.on_demand, "on_demand", std::nullopt, "", ""};
  }
  const SpotPrice& s = spec.spot;
  Quote q;
  if (s.avg) q = {*s.avg, "spot_avg", std::nullopt, "", ""};
  else if (s.median) q = {*s.median, "spot_median", std::nullopt, "", ""};
  else if (s.min && s.max) q = {(*s.min + *s.max) / 2, "spot_mid", std::nullopt, "", ""};
  else return std::nullopt;
  if (s.min && s.max && *s.min < *s.max) q.range = std::array<double, 2>{*s.min, *s.max};
  // The zones whose prices reach the range's ends (the first by name on a tie).
  double lo = 0, hi = 0;
  for (const auto& [zone, p] : s.zones) {
    if (q.cheapest_zone.empty() || p.min < lo) q.cheapest_zone = zone, lo = p.min;
    if (q.dearest_zone.empty() || p.max > hi) q.dearest_zone = zone, hi = p.max;
  }
  return q;
}

std::string resolve_price_table_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.find('/') != std::string::npos || name_or_path.size() > 5 &&
      name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0)
    return name_or_path;
  return (fs::path(data_dir()) / "pricing" / "tables" / (name_or_path + ".json")).string();
}

namespace {

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return false;
  const int month = std::stoi(s.substr(5, 2)), day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::string date_at(const JsonView& v) {
  const std::string s = v.as_string();
  if (!is_date(s)) v.fail("expected a date YYYY-MM-DD, got '" + s + "'");
  return s;
}

std::optional<double> optional_price(const JsonView& row, const std::string& key) {
  auto v = row.find(key);
  if (!v || v->raw().is_null()) return std::nullopt;
  return v->as_positive_number();
}

SpotPrice read_spot(const JsonView& spot) {
  spot.expect_object({"avg", "median", "min", "max", "zones", "window"});
  SpotPrice s;
  s.avg = optional_price(spot, "avg");
  s.median = optional_price(spot, "median");
  s.min = optional_price(spot, "min");
  s.max = optional_price(spot, "max");
  if (s.min.has_value() != s.max.has_value()) spot.fail("give spot min and max together");
  if (s.min && *s.min > *s.max) spot.at("min").fail("spot min is above spot max");
  if (s.median && s.min && (*s.median < *s.min || *s.median > *s.max)) spot.at("median").fail("spot median lies outside min..max");
  if (auto zones = spot.find("zones")) {
    for (const auto& zone : zones->keys()) {
      const JsonView z = zones->at(zone);
      ZonePrice p;
      if (z.raw().is_number()) {
        p.min = p.median = p.max = z.as_positive_number();
      } else {
        z.expect_object({"min", "median", "max"});
        p = {z.at("min").as_positive_number(), z.at("median").as_positive_number(), z.at("max").as_positive_number()};
        if (p.min > p.median || p.median > p.max) z.fail("expected min <= median <= max");
      }
      if (!s.min || p.min < *s.min || p.max > *s.max) z.fail("zone price lies outside the row's spot min..max");
      s.zones.emplace(zone, p);
    }
  }
  if (auto window = spot.find("window")) {
    window->expect_object({"from", "to"});
    s.window_from = window->at("from").as_string();
    s.window_to = window->at("to").as_string();
    if (s.window_from > s.window_to) window->at("from").fail("window starts after it ends");
  }
  return s;
}

InstanceSpec read_row(const JsonView& row, const std::string& type) {
  row.expect_object({"vcpus", "memory_gib", "accelerators", "accelerator_model", "on_demand", "spot", "source", "link_gbps",
                     "link_basis"});
  InstanceSpec spec;
  spec.type = type;
  spec.vcpus = static_cast<int>(row.at("vcpus").as_positive_int());
  spec.memory_gib = row.at("memory_gib").as_positive_number();
  if (auto a = row.find("accelerators")) {
    spec.accelerators = a->as_number();
    if (spec.accelerators < 0) a->fail("expected a number >= 0");
  }
  spec.accelerator_model = row.string_or("accelerator_model", "");
  spec.on_demand = optional_price(row, "on_demand");
  if (auto spot = row.find("spot"); spot && !spot->raw().is_null()) spec.spot = read_spot(*spot);
  spec.source = row.string_or("source", "");
  if (auto link = row.find("link_gbps")) {
    spec.link_gbps = link->as_positive_number();
    spec.link_basis = row.string_or("link_basis", "");
    if (spec.link_basis.empty()) link->fail("a link figure needs its link_basis (which figure, and where it is published)");
  }
  if (!spec.on_demand && !quote(spec, Market::spot)) row.fail("has neither an on_demand nor a spot price");
  return spec;
}

RegionInstances read_instances(const JsonView& instances) {
  RegionInstances out;
  for (const auto& type : instances.keys()) out.emplace(type, read_row(instances.at(type), type));
  if (out.empty()) instances.fail("no instances");
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

PriceTable read_price_table(const std::string& name_or_path) {
  const std::string path = resolve_price_table_path(name_or_path);
  const nlohmann::json doc = read_json_file(path);
  JsonView root(doc, path);
  PriceTable table;
  table.path = path;
  table.sha256 = sha256_hex(read_text_file(path));
  const int64_t version = root.at("schema_version").as_int();
  table.schema_version = static_cast<int>(version);
  if (version == 1 || version == 2) {
    table.name = root.at("name").as_string();
    table.provider = root.string_or("provider", "");
    table.service = root.string_or("service", "");
    table.source = root.at("source").as_string();
    table.retrieved = date_at(root.at("retrieved"));
    if (auto p = root.find_value("published")) table.published = date_at(*p);
    table.currency = root.at("currency").as_string();
    table.notes = root.string_or("notes", "");
  }
  if (version == 1) {
    root.expect_object({"schema_version", "name", "provider", "service", "source", "published", "retrieved",
                        "region", "currency", "notes", "instances"});
    const std::string only = root.at("region").as_string();
    table.regions.emplace(only, read_instances(root.at("instances")));
  } else if (version == 2) {
    root.expect_object({"schema_version", "name", "provider", "service", "source", "published", "retrieved",
                        "currency", "notes", "sources", "regions"});
    const JsonView regions = root.at("regions");
    for (const auto& r : regions.keys()) table.regions.emplace(r, read_instances(regions.at(r)));
    if (table.regions.empty()) regions.fail("no regions");
    if (auto sources = root.find("sources")) {
      for (const auto& s : sources->items()) {
        s.expect_object({"file", "format", "sha256", "published", "imported", "notes"});
        TableSource src{s.at("file").as_string(), s.at("format").as_string(), s.at("sha256").as_string(), "",
                        date_at(s.at("imported")), {}};
        if (auto p = s.find_value("published")) src.published = date_at(*p);
        if (auto notes = s.find("notes"))
          for (const auto& n : notes->items()) src.notes.push_back(n.as_string());
        table.sources.push_back(std::move(src));
      }
    }
  } else {
    root.at("schema_version").fail("only versions 1 and 2 are known");
  }

  return table;
}

PriceTable load_price_table(const std::string& name_or_path, const std::string& region) {
  PriceTable table = read_price_table(name_or_path);
  const bool v1 = table.schema_version == 1;
  if (region.empty() && table.regions.size() > 1)
    throw InputError(table.path, "/regions",
                     "holds " + std::to_string(table.regions.size()) + " regions (" + join(table.region_names()) +
                         "): choose one (pricing.region, --region)");
  table.region = region.empty() ? table.regions.begin()->first : region;
  auto chosen = table.regions.find(table.region);
  if (chosen == table.regions.end())
    throw InputError(table.path, v1 ? "/region" : "/regions",
                     "no region '" + region + "' in price table " + table.name + " (it has " + join(table.region_names()) + ")" +
                         did_you_mean(region, table.region_names()));
  table.instances = chosen->second;
  return table;
}

std::optional<int64_t> days_between(const std::string& date, const std::string& today) {
  if (!is_date(date) || !is_date(today)) return std::nullopt;
  // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
  auto days = [](const std::string& d) {
    int64_t y = std::stoi(d.substr(0, 4));
    const int64_t m = std::stoi(d.substr(5, 2)), dd = std::stoi(d.substr(8, 2));
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  };
  return static_cast<int64_t>(days(today) - days(date));
}


std::string staleness_warning(const PriceTable& table, int64_t max_age_days, const std::string& today) {
  if (table.published.empty())
    return fmt::format("price table {} does not record when its prices were published (retrieved {}): they may be "
                       "out of date; import current ones with `pperf prices import`",
                       table.name, table.retrieved);
  const auto age = days_between(table.published, today);
  if (!age || *age <= max_age_days) return "";
  return fmt::format("price table {} was published {} ({} days ago, more than pricing.max_age_days {}): prices may have "
                     "changed; import current ones with `pperf prices import`",
                     table.name, table.published, *age, max_age_days);
}

std::vector<PriceChange> diff_tables(const PriceTable& before, const PriceTable& after) {
  std::vector<PriceChange> out;
  auto fields = [](const InstanceSpec* s) {
    std::vector<std::pair<std::string, std::optional<double>>> f = {{"on_demand", std::nullopt},
                                                                    {"spot avg", std::nullopt},
                                                                    {"spot min", std::nullopt},
                                                                    {"spot median", std::nullopt},
                                                                    {"spot max", std::nullopt}};
    if (s) f = {{"on_demand", s->on_demand}, {"spot avg", s->spot.avg}, {"spot min", s->spot.min},
                {"spot median", s->spot.median}, {"spot max", s->spot.max}};
    return f;
  };
  std::map<std::string, std::map<std::string, std::pair<const InstanceSpec*, const InstanceSpec*>>> rows;
  for (const auto& [region, types] : before.regions)
    for (const auto& [type, spec] : types) rows[region][type].first = &spec;
  for (const auto& [region, types] : after.regions)
    for (const auto& [type, spec] : types) rows[region][type].second = &spec;
  for (const auto& [region, types] : rows)
    for (const auto& [type, pair] : types) {
      const auto b = fields(pair.first), a = fields(pair.second);
      for (size_t i = 0; i < b.size(); ++i)
        if (b[i].second != a[i].second) out.push_back({region, type, b[i].first, b[i].second, a[i].second});
    }
  return out;
}

std::optional<NetworkPerformance> parse_network_performance(const std::string& text) {
  // [Up to ][Nx ]<number> Gigabit
  static const std::regex pattern(R"(^\s*(up to\s+)?(?:(\d+)\s*x\s+)?(\d+(?:\.\d+)?)\s+gigabit\s*$)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  NetworkPerformance out;
  out.burst = m[1].matched;
  out.gbps = std::stod(m[3].str()) * (m[2].matched ? std::stod(m[2].str()) : 1.0);
  if (!(out.gbps > 0)) return std::nullopt;
  return out;
}

}  // namespace pperf
