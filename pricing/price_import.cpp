#include "pricing/price_import.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/core/crypto.h"
#include "bench/core/input_error.h"
#include "bench/core/json_view.h"

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

namespace {

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

InstanceSpec& row_for(PriceTable& table, const std::string& region, const std::string& type, const ImportOptions& o) {
  InstanceSpec& spec = table.regions[region][type];
  spec.type = type;
  if (!o.row_source.empty()) spec.source = o.row_source;
  return spec;
}

// ---- AWS Price List bulk offer files (AmazonEC2, AmazonSageMaker) ----

struct OfferRow {
  std::string sku, region, type;
  int vcpus = 0;
  double memory_gib = 0;
  int gpus = 0;
  std::string gpu_model;
};

/// The file's text as JSON; a syntax error is an InputError naming the file.
nlohmann::json parse_json(const ImportFile& f) {
  try {
    return nlohmann::json::parse(f.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(f.path, "", std::string("not JSON: ") + e.what());
  }
}

std::optional<std::string> attribute(const JsonView& attrs, const std::string& key) {
  auto v = attrs.find(key);
  if (!v) return std::nullopt;
  return v->as_string();
}

std::string import_aws_offer(PriceTable& table, const ImportFile& f, const ImportOptions& o) {
  const nlohmann::json doc = parse_json(f);
  const JsonView root(doc, f.path);
  const std::string offer = root.at("offerCode").as_choice({"AmazonEC2", "AmazonSageMaker"});
  const bool ec2 = offer == "AmazonEC2";
  const JsonView date = root.at("publicationDate");
  const std::string published = date.as_string().substr(0, 10);
  if (!valid_date(published)) date.fail("expected an ISO 8601 date-time, got '" + date.as_string() + "'");

  const JsonView products = root.at("products");
  const JsonView on_demand = root.at("terms").at("OnDemand");
  std::map<std::pair<std::string, std::string>, std::pair<double, std::string>> seen;  // (region, type) -> price, sku
  size_t imported = 0;
  for (const auto& sku : products.keys()) {
    const JsonView product = products.at(sku);
    const std::string family = product.string_or("productFamily", "");
    const JsonView attrs = product.at("attributes");
    OfferRow row;
    row.sku = sku;
    if (ec2) {
      if (family != "Compute Instance" && family != "Compute Instance (bare metal)") continue;
      if (attribute(attrs, "operatingSystem") != "Linux" || attribute(attrs, "tenancy") != "Shared" ||
          attribute(attrs, "preInstalledSw") != "NA" || attribute(attrs, "capacitystatus").value_or("Used") != "Used")
        continue;
      row.type = attrs.at("instanceType").as_string();
    } else {
      if (family != "ML Instance" || attribute(attrs, "component") != o.sagemaker_component) continue;
      row.type = attrs.at("instanceName").as_string();
    }
    const auto region = attrs.find("regionCode");
    if (!region) attrs.fail("no regionCode (the region's code, e.g. us-east-1): is this a current offer file?");
    row.region = region->as_string();
    if (!wanted(o, row.region)) continue;
    const JsonView vcpu = attrs.at(ec2 ? "vcpu" : "vCpu");
    const auto v = decimal(vcpu.as_string());
    if (!v || *v <= 0 || !is_whole(*v)) vcpu.fail("expected a whole number of vCPUs, got '" + vcpu.as_string() + "'");
    row.vcpus = static_cast<int>(*v);
    const JsonView memory = attrs.at("memory");
    const auto m = quantity(memory.as_string());
    if (!m || *m <= 0) memory.fail("expected memory as 'N GiB', got '" + memory.as_string() + "'");
    row.memory_gib = *m;
    if (auto gpu = attrs.find("gpu"); gpu && gpu->as_string() != "NA" && gpu->as_string() != "0") {
      const auto g = decimal(gpu->as_string());
      if (!g || !is_whole(*g)) gpu->fail("expected a whole number of GPUs, got '" + gpu->as_string() + "'");
      row.gpus = static_cast<int>(*g);
      if (auto model = attribute(attrs, "physicalGpu"); model && *model != "NA") {
        row.gpu_model = *model;
        if (auto mem = attrs.find("gpuMemory"); mem && mem->as_string() != "NA") {
          const auto gib = quantity(mem->as_string());
          if (!gib || *gib <= 0) mem->fail("expected GPU memory in GB, got '" + mem->as_string() + "'");
          row.gpu_model += fmt::format(" {:g}GB", *gib);
        }
      }
    }
    // The hourly on-demand price: terms.OnDemand.<sku>.<term>.priceDimensions.<rate> in Hrs.
    const auto terms = on_demand.find(sku);
    if (!terms) continue;  // reserved-only products have no on-demand term
    std::optional<double> usd;
    for (const auto& term : terms->keys()) {
      const JsonView dims = terms->at(term).at("priceDimensions");
      for (const auto& rate : dims.keys()) {
        const JsonView dim = dims.at(rate);
        if (dim.at("unit").as_string() != "Hrs") continue;
        const double price = positive_decimal_at(dim.at("pricePerUnit").at("USD"), "a price in USD");
        if (usd && *usd != price)
          dim.at("pricePerUnit").at("USD").fail(fmt::format("a second hourly price ({} USD/h) for SKU {} (first {} USD/h)", price, sku, *usd));
        usd = price;
      }
    }
    if (!usd) continue;
    const auto key = std::make_pair(row.region, row.type);
    if (auto it = seen.find(key); it != seen.end()) {
      if (it->second.first != *usd)
        products.at(sku).fail(fmt::format("{} in {} is priced {} USD/h here and {} USD/h by SKU {}", row.type, row.region, *usd,
                                          it->second.first, it->second.second));
      continue;
    }
    seen[key] = {*usd, sku};
    InstanceSpec& spec = row_for(table, row.region, row.type, o);
    spec.vcpus = row.vcpus;
    spec.memory_gib = row.memory_gib;
    spec.accelerators = row.gpus;
    if (!row.gpu_model.empty()) spec.accelerator_model = row.gpu_model;
    spec.on_demand = *usd;
    ++imported;
  }
  if (imported == 0)
    throw InputError(f.path, "/products",
                     ec2 ? "no on-demand Linux, shared-tenancy instance without pre-installed software in " +
                               (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", ")))
                         : "no ML Instance of component " + o.sagemaker_component + " with an on-demand price in " +
                               (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", "))));
  return published;
}

// ---- aws ec2 describe-spot-price-history --output json ----

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string import_spot_history(PriceTable& table, const ImportFile& f, const ImportOptions& o) {
  const nlohmann::json doc = parse_json(f);
  const JsonView root(doc, f.path);
  struct Points {
    std::map<std::string, std::vector<double>> by_zone;
    std::string from, to;
  };
  std::map<std::pair<std::string, std::string>, Points> series;  // (region, type)
  std::string latest;
  for (const auto& item : root.at("SpotPriceHistory").items()) {
    item.expect_object({"AvailabilityZone", "InstanceType", "ProductDescription", "SpotPrice", "Timestamp"});
    const std::string product = item.at("ProductDescription").as_string();
    if (product != "Linux/UNIX" && product != "Linux/UNIX (Amazon VPC)") continue;
    const JsonView zone_v = item.at("AvailabilityZone");
    const std::string zone = zone_v.as_string();
    // us-east-1a -> us-east-1: a zone is its region's name and a letter.
    if (zone.size() < 2 || zone.back() < 'a' || zone.back() > 'z' || zone[zone.size() - 2] < '0' || zone[zone.size() - 2] > '9')
      zone_v.fail("expected an availability zone name such as us-east-1a, got '" + zone + "'");
    const std::string region = zone.substr(0, zone.size() - 1);
    if (!wanted(o, region)) continue;
    const JsonView ts = item.at("Timestamp");
    const std::string when = ts.as_string();
    if (when.size() < 19 || !valid_date(when.substr(0, 10)) || when[10] != 'T')
      ts.fail("expected an ISO 8601 date-time such as 2024-05-01T12:00:00+00:00, got '" + when + "'");
    const double price = positive_decimal_at(item.at("SpotPrice"), "a spot price in USD/h");
    Points& p = series[{region, item.at("InstanceType").as_string()}];
    p.by_zone[zone].push_back(price);
    const std::string t = when.substr(0, 19) + "Z";
    if (p.from.empty() || t < p.from) p.from = t;
    if (p.to.empty() || t > p.to) p.to = t;
    latest = std::max(latest, t);
  }
  if (series.empty())
    throw InputError(f.path, "/SpotPriceHistory", "no Linux/UNIX spot prices" +
                                                      (o.regions.empty() ? std::string() : fmt::format(" in {}", fmt::join(o.regions, ", "))));
  for (const auto& [key, p] : series) {
    const auto& [region, type] = key;
    auto r = table.regions.find(region);
    if (r == table.regions.end() || !r->second.count(type))
      throw InputError(f.path, "/SpotPriceHistory",
                       "spot prices for " + type + " in " + region + ", which the base table does not describe (vCPUs, memory): "
                       "import an offer or a SkyPilot catalog first and give it as --base");
    InstanceSpec& spec = row_for(table, region, type, o);
    SpotPrice s;
    std::vector<double> all;
    for (const auto& [zone, prices] : p.by_zone) {
      const auto [lo, hi] = std::minmax_element(prices.begin(), prices.end());
      s.zones[zone] = {*lo, median_of(prices), *hi};
      all.insert(all.end(), prices.begin(), prices.end());
    }
    const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
    s.min = *lo;
    s.max = *hi;
    s.median = median_of(all);
    s.window_from = p.from;
    s.window_to = p.to;
    spec.spot = s;
  }
  return latest.substr(0, 10);
}

// ---- SkyPilot catalog vms.csv ----

std::string import_skypilot(PriceTable& table, const ImportFile& f, const ImportOptions& o) {
  const std::string published = declared_published(o, f);
  const auto rows = read_csv(f.text, f.path);
  if (rows.empty()) throw InputError(f.path, "line 1", "empty: expected a header line (InstanceType,...,Price,SpotPrice,Region)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i].text] = i;
  if (col.count("GPUInfo") && !col.count("GpuInfo")) col["GpuInfo"] = col["GPUInfo"];
  for (const char* need : {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "SpotPrice", "Region"})
    if (!col.count(need)) throw InputError(f.path, "line 1", std::string("no column ") + need + " in the header");
  auto where = [&](const CsvField& field, const std::string& column) {
    return fmt::format("line {}, column {} ({})", field.line, field.column, column);
  };
  struct Seen {
    InstanceSpec spec;
    std::vector<double> spot;
    size_t line = 0;
  };
  std::map<std::pair<std::string, std::string>, Seen> rows_by_key;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    if (row.size() == 1 && row[0].text.empty()) continue;  // a blank line
    if (row.size() != rows[0].size())
      throw InputError(f.path, fmt::format("line {}", row[0].line),
                       fmt::format("{} fields, the header has {}", row.size(), rows[0].size()));
    auto field = [&](const std::string& c) -> const CsvField& { return row[col.at(c)]; };
    auto number = [&](const std::string& c, bool allow_empty) -> std::optional<double> {
      const CsvField& x = field(c);
      if (x.text.empty()) {
        if (allow_empty) return std::nullopt;
        throw InputError(f.path, where(x, c), "empty");
      }
      const auto d = decimal(x.text);
      if (!d) throw InputError(f.path, where(x, c), "expected a number, got '" + x.text + "'");
      return d;
    };
    const std::string region = field("Region").text;
    if (region.empty()) throw InputError(f.path, where(field("Region"), "Region"), "empty");
    if (!wanted(o, region)) continue;
    InstanceSpec spec;
    spec.type = field("InstanceType").text;
    if (spec.type.empty()) throw InputError(f.path, where(field("InstanceType"), "InstanceType"), "empty");
    const double vcpus = *number("vCPUs", false);
    if (vcpus <= 0 || !is_whole(vcpus)) throw InputError(f.path, where(field("vCPUs"), "vCPUs"), "expected a whole number > 0");
    spec.vcpus = static_cast<int>(vcpus);
    spec.memory_gib = *number("MemoryGiB", false);
    if (spec.memory_gib <= 0) throw InputError(f.path, where(field("MemoryGiB"), "MemoryGiB"), "expected a number > 0");
    if (const auto count = number("AcceleratorCount", true)) {
      if (!is_whole(*count)) throw InputError(f.path, where(field("AcceleratorCount"), "AcceleratorCount"), "expected a whole number");
      spec.accelerators = static_cast<int>(*count);
    }
    spec.accelerator_model = field("AcceleratorName").text;
    if (col.count("GpuInfo") && !field("GpuInfo").text.empty()) {
      // GpuInfo is a Python dict literal: {'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA',
      // 'Count': 8, 'MemoryInfo': {'SizeInMiB': 40960}}], ...}. Single quotes -> JSON.
      std::string text = field("GpuInfo").text;
      std::replace(text.begin(), text.end(), '\'', '"');
      const auto info = nlohmann::json::parse(text, nullptr, false);
      if (info.is_discarded() || !info.contains("Gpus") || !info["Gpus"].is_array() || info["Gpus"].empty() ||
          !info["Gpus"][0].is_object() || !info["Gpus"][0].contains("Name") || !info["Gpus"][0]["Name"].is_string())
        throw InputError(f.path, where(field("GpuInfo"), "GpuInfo"), "expected {'Gpus': [{'Name': ..., ...}], ...}");
      const auto& gpu = info["Gpus"][0];
      std::string model = gpu["Name"].get<std::string>();
      if (gpu.contains("Manufacturer") && gpu["Manufacturer"].is_string()) model = gpu["Manufacturer"].get<std::string>() + " " + model;
      if (gpu.contains("MemoryInfo") && gpu["MemoryInfo"].is_object() && gpu["MemoryInfo"].contains("SizeInMiB") &&
          gpu["MemoryInfo"]["SizeInMiB"].is_number())
        model += fmt::format(" {:g}GB", gpu["MemoryInfo"]["SizeInMiB"].get<double>() / 1024);
      spec.accelerator_model = model;
    }
    if (spec.accelerators == 0) spec.accelerator_model.clear();
    if (const auto p = number("Price", true)) {
      if (*p <= 0) throw InputError(f.path, where(field("Price"), "Price"), "expected a price > 0");
      spec.on_demand = *p;
    }
    const std::string zone = col.count("AvailabilityZone") ? field("AvailabilityZone").text : "";
    const std::optional<double> spot = number("SpotPrice", true);
    if (spot && *spot <= 0) throw InputError(f.path, where(field("SpotPrice"), "SpotPrice"), "expected a price > 0");
    if (!spec.on_demand && !spot) throw InputError(f.path, fmt::format("line {}", row[0].line), "neither Price nor SpotPrice");

    auto [it, first] = rows_by_key.try_emplace({region, spec.type});
    Seen& seen = it->second;
    if (first) {
      seen.spec = spec;
      seen.line = row[0].line;
    } else if (seen.spec.vcpus != spec.vcpus || seen.spec.memory_gib != spec.memory_gib ||
               seen.spec.accelerators != spec.accelerators || seen.spec.on_demand != spec.on_demand) {
      throw InputError(f.path, fmt::format("line {}", row[0].line),
                       fmt::format("{} in {} differs from line {} (vCPUs, memory, accelerators or Price): one region, one "
                                   "on-demand price", spec.type, region, seen.line));
    }
    if (spot) {
      seen.spot.push_back(*spot);
      if (!zone.empty()) {
        if (seen.spec.spot.zones.count(zone))
          throw InputError(f.path, where(field("AvailabilityZone"), "AvailabilityZone"), "zone " + zone + " appears twice for " + spec.type);
        seen.spec.spot.zones[zone] = {*spot, *spot, *spot};
      }
    }
  }
  if (rows_by_key.empty())
    throw InputError(f.path, "", "no rows" + (o.regions.empty() ? std::string() : fmt::format(" in {}", fmt::join(o.regions, ", "))));
  for (auto& [key, seen] : rows_by_key) {
    InstanceSpec& spec = row_for(table, key.first, key.second, o);
    const std::string source = spec.source;
    spec = seen.spec;
    spec.source = source;
    if (!seen.spot.empty()) {
      // A catalog holds one price per zone, not a series: the table keeps min..max across zones.
      const auto [lo, hi] = std::minmax_element(seen.spot.begin(), seen.spot.end());
      spec.spot.min = *lo;
      spec.spot.max = *hi;
    }
  }
  return published;
}

nlohmann::ordered_json row_json(const InstanceSpec& s) {
  nlohmann::ordered_json j;
  j["vcpus"] = s.vcpus;
  j["memory_gib"] = s.memory_gib;
  j["accelerators"] = s.accelerators;
  if (!s.accelerator_model.empty()) j["accelerator_model"] = s.accelerator_model;
  if (s.on_demand) j["on_demand"] = *s.on_demand;
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

void import_prices(PriceTable& table, const std::vector<ImportFile>& files, const ImportOptions& options) {
  if (!valid_date(options.imported)) throw InputError("--imported", "", "expected YYYY-MM-DD, got '" + options.imported + "'");
  for (const auto& f : files) {
    std::string published;
    switch (options.format) {
      case ImportFormat::aws_offer: published = import_aws_offer(table, f, options); break;
      case ImportFormat::aws_spot_history: published = import_spot_history(table, f, options); break;
      case ImportFormat::skypilot: published = import_skypilot(table, f, options); break;
      case ImportFormat::spot_advisor:
        throw InputError("--format", "", "spot-advisor files make an interruption table, not a price table");
    }
    table.sources.push_back({base_name(f.path), to_string(options.format), sha256_hex(f.text), published, options.imported});
  }
  table.published.clear();
  bool unknown = false;
  for (const auto& s : table.sources) {
    if (s.published.empty()) unknown = true;
    else if (table.published.empty() || s.published < table.published) table.published = s.published;
  }
  if (unknown) table.published.clear();
  table.retrieved = options.imported;
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
  j["sources"] = sources;
  nlohmann::ordered_json regions = nlohmann::ordered_json::object();
  for (const auto& [region, types] : t.regions) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::object();
    for (const auto& [type, spec] : types) rows[type] = row_json(spec);
    regions[region] = rows;
  }
  j["regions"] = regions;
  return j.dump(2) + "\n";
}

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
  nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
  double from = 0, last_width = 0;
  for (auto it = ranges.begin(); it != ranges.end(); ++it) {
    const auto& [label, max] = it->second;
    const bool open = std::next(it) == ranges.end() && (label.rfind(">", 0) == 0 || max >= 100);
    if (!open && max <= from)
      throw InputError(f.path, "/ranges", fmt::format("range {} ('{}') ends at {} %, not above the previous one's {} %", it->first, label, max, from));
    // A closed bucket counts as its midpoint; the open last one (">20%") as its lower bound
    // plus the width of the bucket before it.
    const double value = open ? from + last_width : (from + max) / 2;
    buckets.push_back({{"label", label},
                       {"from_pct", from},
                       {"to_pct", open ? nlohmann::ordered_json() : nlohmann::ordered_json(max)},
                       {"value_pct", value}});
    last_width = max - from;
    from = max;
  }
  nlohmann::ordered_json regions = nlohmann::ordered_json::object();
  const JsonView advisor = root.at("spot_advisor");
  for (const auto& region : advisor.keys()) {
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

std::vector<std::vector<CsvField>> read_csv(const std::string& text, const std::string& file) {
  std::vector<std::vector<CsvField>> rows;
  std::vector<CsvField> row;
  CsvField field;
  size_t line = 1, column = 1;
  bool quoted = false, field_started = false;
  auto start_field = [&] {
    if (!field_started) field.line = line, field.column = column, field_started = true;
  };
  auto end_field = [&] {
    start_field();
    row.push_back(std::move(field));
    field = CsvField{};
    field_started = false;
  };
  size_t quote_line = 0, quote_column = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.text += '"';
        ++i, column += 2;
        continue;
      }
      if (c == '"') {
        quoted = false;
        ++column;
        if (i + 1 < text.size() && text[i + 1] != ',' && text[i + 1] != '\n' && text[i + 1] != '\r')
          throw InputError(file, fmt::format("line {}, column {}", line, column), "text after a closing quote");
        continue;
      }
      field.text += c;
      if (c == '\n') ++line, column = 1;
      else ++column;
      continue;
    }
    if (c == '"') {
      start_field();
      if (!field.text.empty()) throw InputError(file, fmt::format("line {}, column {}", line, column), "a quote inside an unquoted field");
      quoted = true;
      quote_line = line, quote_column = column;
      ++column;
    } else if (c == ',') {
      end_field();
      ++column;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      end_field();
      rows.push_back(std::move(row));
      row.clear();
      ++line, column = 1;
    } else {
      start_field();
      field.text += c;
      ++column;
    }
  }
  if (quoted) throw InputError(file, fmt::format("line {}, column {}", quote_line, quote_column), "a quoted field is never closed");
  if (field_started || !row.empty()) {
    end_field();
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pperf
