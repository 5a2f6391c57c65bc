#include "pricing/price_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <istream>
#include <map>
#include <set>
#include <streambuf>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"

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

// ---- AWS Price List bulk offer files (AmazonEC2, AmazonSageMaker) ----

struct OfferRow {
  std::string sku, region, type;
  int vcpus = 0;
  double memory_gib = 0;
  int gpus = 0;
  std::string gpu_model;
  std::string network;  // networkPerformance, "" when the product has none
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

/// Products of `aws pricing get-products` ({"product", "serviceCode", "terms", "publicationDate"}
/// each) folded into one bulk offer: its pointers name /products/SKU and /terms/OnDemand/SKU as a
/// bulk offer's do. `where(i)` names product i for an error.
nlohmann::json products_as_offer(const std::vector<nlohmann::json>& products, const ImportFile& f,
                                 const std::function<std::string(size_t)>& where) {
  nlohmann::json offer = {{"products", nlohmann::json::object()}, {"terms", {{"OnDemand", nlohmann::json::object()}}}};
  std::string service, published;
  for (size_t i = 0; i < products.size(); ++i) {
    const auto& p = products[i];
    if (!p.is_object() || !p.contains("product") || !p["product"].is_object() || !p["product"].contains("sku") ||
        !p["product"]["sku"].is_string())
      throw InputError(f.path, where(i), "expected a product: {\"product\": {\"sku\", ...}, \"terms\", ...}");
    const std::string sku = p["product"]["sku"];
    offer["products"][sku] = p["product"];
    if (p.contains("terms") && p["terms"].is_object() && p["terms"].contains("OnDemand"))
      offer["terms"]["OnDemand"][sku] = p["terms"]["OnDemand"];
    if (p.contains("serviceCode") && p["serviceCode"].is_string()) service = p["serviceCode"];
    if (p.contains("publicationDate") && p["publicationDate"].is_string())
      published = std::max(published, p["publicationDate"].get<std::string>());
  }
  offer["offerCode"] = service;
  offer["publicationDate"] = published;
  return offer;
}

/// Text held in memory as a stream, read in place: the JSON parser takes one value from it at a
/// time and leaves it just past that value.
class InPlaceText : public std::streambuf {
 public:
  explicit InPlaceText(const std::string& text) {
    char* begin = const_cast<char*>(text.data());  // only ever read
    setg(begin, begin, begin + text.size());
  }
  size_t offset() const { return static_cast<size_t>(gptr() - eback()); }
};

/// 1-based line and column of byte `offset` of `text`.
std::pair<size_t, size_t> line_and_column(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  const size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1);
  return {line, line_start == std::string::npos ? offset + 1 : offset - line_start};
}

/// The file as a JSON text sequence, in one pass: values one after another, separated by
/// whitespace (newlines or not) and RFC 7464's record separator (0x1E). Each value's first line
/// is in `lines`. A syntax error is an InputError naming the file, line and column.
std::vector<nlohmann::json> json_sequence(const ImportFile& f, std::vector<size_t>& lines) {
  InPlaceText buffer(f.text);
  std::istream in(&buffer);
  std::vector<nlohmann::json> values;
  size_t line = 1, counted_to = 0;  // newlines counted up to counted_to
  for (;;) {
    int c;
    while ((c = in.peek()) != std::char_traits<char>::eof() && (c == 0x1E || std::isspace(c))) in.get();
    if (c == std::char_traits<char>::eof()) break;
    const size_t start = buffer.offset();
    line += static_cast<size_t>(std::count(f.text.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                           f.text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    counted_to = start;
    nlohmann::json value;
    try {
      in >> value;
    } catch (const nlohmann::json::parse_error& e) {
      // e.byte counts from this value's start; the parser's message after its position is the cause.
      const auto [at_line, at_column] = line_and_column(f.text, start + (e.byte > 0 ? e.byte - 1 : 0));
      std::string cause = e.what();
      if (const size_t colon = cause.find(": ", cause.find("parse error")); colon != std::string::npos) cause = cause.substr(colon + 2);
      throw InputError(f.path, "", fmt::format("not JSON: line {}, column {}: {}", at_line, at_column, cause));
    }
    values.push_back(std::move(value));
    lines.push_back(line);
  }
  if (values.empty()) throw InputError(f.path, "", "not JSON: the file holds no JSON value");
  return values;
}

/// An offer file as one JSON document: a bulk offer file as it is; `aws pricing get-products`
/// output ({"PriceList": [...]}, each item a product or the JSON text of one, as the CLI prints
/// them) or those products as a JSON text sequence (`jq '.PriceList[] | fromjson'`, pretty or one
/// per line, RFC 7464 record separators or none) folded into one.
nlohmann::json offer_document(const ImportFile& f) {
  std::vector<size_t> lines;
  std::vector<nlohmann::json> values = json_sequence(f, lines);
  if (values.size() == 1 && !(values[0].is_object() && values[0].contains("product"))) {
    nlohmann::json& doc = values[0];
    if (!doc.is_object() || !doc.contains("PriceList")) return std::move(doc);
    if (!doc["PriceList"].is_array()) throw InputError(f.path, "/PriceList", "expected an array of products");
    std::vector<nlohmann::json> products;
    for (const auto& item : doc["PriceList"])
      products.push_back(item.is_string() ? nlohmann::json::parse(item.get<std::string>(), nullptr, false) : item);
    return products_as_offer(products, f, [](size_t i) { return fmt::format("/PriceList/{}", i); });
  }
  return products_as_offer(values, f, [&](size_t i) { return fmt::format("line {}", lines[i]); });
}

std::string import_aws_offer(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                             std::set<std::string>& regions_in_files, std::vector<std::string>& notes) {
  const nlohmann::json doc = offer_document(f);
  const JsonView root(doc, f.path);
  const std::string offer = root.at("offerCode").as_choice({"AmazonEC2", "AmazonSageMaker"});
  const bool ec2 = offer == "AmazonEC2";
  const JsonView date = root.at("publicationDate");
  const std::string published = date.as_string().substr(0, 10);
  if (!valid_date(published)) date.fail("expected an ISO 8601 date-time, got '" + date.as_string() + "'");

  const JsonView products = root.at("products");
  const JsonView on_demand = root.at("terms").at("OnDemand");
  std::map<std::pair<std::string, std::string>, std::pair<double, std::string>> seen;  // (region, type) -> price, sku
  size_t imported = 0, upcoming = 0;
  std::string upcoming_example;
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
    regions_in_files.insert(row.region);
    if (!wanted(o, row.region)) continue;
    const JsonView vcpu = attrs.at(ec2 ? "vcpu" : "vCpu");
    const auto v = decimal(vcpu.as_string());
    if (!v || *v <= 0 || !is_whole(*v)) vcpu.fail("expected a whole number of vCPUs, got '" + vcpu.as_string() + "'");
    row.vcpus = static_cast<int>(*v);
    const JsonView memory = attrs.at("memory");
    const auto m = quantity(memory.as_string());
    if (!m || *m <= 0) memory.fail("expected memory as 'N GiB', got '" + memory.as_string() + "'");
    row.memory_gib = *m;
    row.network = attribute(attrs, "networkPerformance").value_or("");
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
    // The term in effect on the import date: the latest effectiveDate not after it. A term that
    // starts later (AWS publishes an upcoming price beside the current one) is noted, not used.
    std::optional<double> usd;
    std::string usd_effective;
    for (const auto& term : terms->keys()) {
      const std::string effective = terms->at(term).string_or("effectiveDate", "").substr(0, 10);
      const JsonView dims = terms->at(term).at("priceDimensions");
      for (const auto& rate : dims.keys()) {
        const JsonView dim = dims.at(rate);
        if (dim.at("unit").as_string() != "Hrs") continue;
        const double price = positive_decimal_at(dim.at("pricePerUnit").at("USD"), "a price in USD");
        if (!effective.empty() && effective > o.imported) {
          if (upcoming++ == 0) upcoming_example = fmt::format("{} in {}: {:g} USD/h from {}", row.type, row.region, price, effective);
          continue;
        }
        if (usd && *usd != price && effective == usd_effective)
          dim.at("pricePerUnit").at("USD").fail(fmt::format("a second hourly price ({} USD/h) for SKU {} (first {} USD/h)", price, sku, *usd));
        if (!usd || effective > usd_effective) usd = price, usd_effective = effective;
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
    // A fixed figure is the sustained bandwidth; "up to" is a burst ceiling: no link figure
    // (the baseline comes from the instance-type specifications, --links).
    if (const auto net = parse_network_performance(row.network); net && !net->burst) {
      spec.link_gbps = net->gbps;
      spec.link_basis = fmt::format("networkPerformance \"{}\" of the offer file (a fixed figure, not a burst)", row.network);
    }
    spec.on_demand = *usd;
    ++imported;
  }
  if (imported == 0)
    throw InputError(f.path, "/products",
                     (ec2 ? "no on-demand Linux, shared-tenancy instance without pre-installed software in " +
                                (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", ")))
                          : "no ML Instance of component " + o.sagemaker_component + " with an on-demand price in " +
                                (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", ")))) +
                         fmt::format(" ({} products read)", products.keys().size()));
  if (upcoming > 0)
    notes.push_back(fmt::format("left out {} upcoming hourly prices (a term whose effectiveDate is after the import date {}), "
                                "e.g. {}", upcoming, o.imported, upcoming_example));
  return published;
}

// ---- aws ec2 describe-spot-price-history --output json ----

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string import_spot_history(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                                std::set<std::string>& regions_in_files) {
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
    regions_in_files.insert(region);
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

/// Rows a file holds that pperf cannot use. Under --strict the first one is an InputError at its
/// place; otherwise each kind is counted with its first example and reported as one line.
class SkippedRows {
 public:
  SkippedRows(std::string file, bool strict) : file_(std::move(file)), strict_(strict) {}
  /// `kind` completes "skipped N rows ..."; `place` is "line 295" or "line 6, column 29 (SpotPrice)".
  void skip(const std::string& kind, const std::string& place, const std::string& detail) {
    if (strict_) throw InputError(file_, place, detail + " (without --strict such rows are skipped and counted)");
    Kind& k = kinds_[kind];
    if (k.count++ == 0) k.example = place + ": " + detail;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& [kind, k] : kinds_)
      out.push_back(fmt::format("skipped {} {} {}, e.g. {}", k.count, k.count == 1 ? "row" : "rows", kind, k.example));
    return out;
  }

 private:
  struct Kind {
    size_t count = 0;
    std::string example;
  };
  std::string file_;
  bool strict_;
  std::map<std::string, Kind> kinds_;
};

/// The region a zone's prices belong to: the row's own region for an ordinary zone; for an AWS
/// Local Zone or Wavelength Zone, a region of its own named as AWS names the zone's group
/// ("use1-atl2-az1" or "us-east-1-atl-2a" -> "us-east-1-atl-2"; "use1-wl1-bos-wlz1" ->
/// "us-east-1-wl1-bos-wlz-1"), so a Los Angeles spot price never quotes for us-west-2. The
/// spot-history importer reads a zone name the same way (the zone without its letter).
std::string zone_region(const std::string& region, const std::string& zone) {
  if (zone.empty()) return region;
  if (zone.rfind(region, 0) == 0) {  // a zone name: us-east-1a, us-central1-a, us-east-1-atl-2a
    const std::string rest = zone.substr(region.size());
    if (rest.size() <= 2) return region;
    if (rest.rfind("-wl", 0) == 0) return zone;
    return std::isalpha(static_cast<unsigned char>(zone.back())) ? zone.substr(0, zone.size() - 1) : zone;
  }
  // A zone ID: use1-az1 (ordinary), use1-atl2-az1 (Local Zone), use1-wl1-bos-wlz1 (Wavelength).
  std::vector<std::string> parts;
  for (size_t from = 0;;) {
    const size_t dash = zone.find('-', from);
    parts.push_back(zone.substr(from, dash - from));
    if (dash == std::string::npos) break;
    from = dash + 1;
  }
  // "atl2" -> "atl-2", "wlz1" -> "wlz-1": a location's letters and number, as in the zone's name.
  auto dashed = [](const std::string& p) {
    const size_t digit = p.find_first_of("0123456789");
    return digit == 0 || digit == std::string::npos ? p : p.substr(0, digit) + "-" + p.substr(digit);
  };
  if (parts.size() == 3 && parts[2].rfind("az", 0) == 0) return region + "-" + dashed(parts[1]);
  if (parts.size() >= 3 && parts[1].rfind("wl", 0) == 0) {
    std::string name = region;
    for (size_t i = 1; i < parts.size(); ++i) name += "-" + (i + 1 == parts.size() ? dashed(parts[i]) : parts[i]);
    return name;
  }
  return region;
}

/// GCP sells the GPUs of its accelerator-optimized machine types as rows of their own (empty
/// InstanceType; AcceleratorName, AcceleratorCount, region, zone, price); the machine type's name
/// fixes which GPU and how many (cloud.google.com/compute/docs/gpus). The machine's price is its
/// row plus that accelerator row of the same zone.
struct AttachedGpus {
  std::string name;   // the catalog's AcceleratorName
  double count = 0;
  std::string model;  // what the table records
};

std::optional<AttachedGpus> gcp_attached_gpus(const std::string& type) {
  struct Family {
    const char* prefix;
    const char* name;
    const char* model;
  };
  static const Family families[] = {
      {"a2-highgpu-", "A100", "NVIDIA A100 40GB"},       {"a2-megagpu-", "A100", "NVIDIA A100 40GB"},
      {"a2-ultragpu-", "A100-80GB", "NVIDIA A100 80GB"}, {"a3-highgpu-", "H100", "NVIDIA H100 80GB"},
      {"a3-edgegpu-", "H100", "NVIDIA H100 80GB"},       {"a3-megagpu-", "H100-MEGA", "NVIDIA H100 80GB"},
      {"a3-ultragpu-", "H200", "NVIDIA H200 141GB"},     {"a4-highgpu-", "B200", "NVIDIA B200 180GB"}};
  for (const auto& f : families) {
    const std::string prefix = f.prefix;
    if (type.rfind(prefix, 0) != 0) continue;
    // a2-highgpu-8g, a3-edgegpu-8g-nolssd: the number before "g".
    const size_t end = type.find('g', prefix.size());
    if (end == std::string::npos || end == prefix.size()) return std::nullopt;
    const auto n = decimal(type.substr(prefix.size(), end - prefix.size()));
    if (!n) return std::nullopt;
    return AttachedGpus{f.name, *n, f.model};
  }
  // g2-standard-N: 1 L4 up to 16 and at 32 vCPUs, 2 at 24, 4 at 48, 8 at 96.
  if (type.rfind("g2-standard-", 0) == 0) {
    static const std::map<std::string, double> l4s = {{"4", 1}, {"8", 1}, {"12", 1}, {"16", 1},
                                                      {"32", 1}, {"24", 2}, {"48", 4}, {"96", 8}};
    if (auto it = l4s.find(type.substr(12)); it != l4s.end()) return AttachedGpus{"L4", it->second, "NVIDIA L4 24GB"};
  }
  return std::nullopt;
}

/// GpuInfo as the model: a Python-dict literal ({'Gpus': [{'Name', 'Manufacturer', 'MemoryInfo':
/// {'SizeInMiB'}}]}) gives "NVIDIA A100 40GB"; a plain name ("V100") is the model; anything else
/// leaves the AcceleratorName.
std::string gpu_model(const std::string& gpu_info, const std::string& accelerator_name) {
  if (gpu_info.empty()) return accelerator_name;
  if (gpu_info.find('{') == std::string::npos) return gpu_info;
  std::string text = gpu_info;
  std::replace(text.begin(), text.end(), '\'', '"');
  const auto info = nlohmann::json::parse(text, nullptr, false);
  if (info.is_discarded() || !info.is_object() || !info.contains("Gpus") || !info["Gpus"].is_array() || info["Gpus"].empty() ||
      !info["Gpus"][0].is_object() || !info["Gpus"][0].contains("Name") || !info["Gpus"][0]["Name"].is_string())
    return accelerator_name;
  const auto& gpu = info["Gpus"][0];
  std::string model = gpu["Name"].get<std::string>();
  if (gpu.contains("Manufacturer") && gpu["Manufacturer"].is_string()) model = gpu["Manufacturer"].get<std::string>() + " " + model;
  if (gpu.contains("MemoryInfo") && gpu["MemoryInfo"].is_object() && gpu["MemoryInfo"].contains("SizeInMiB") &&
      gpu["MemoryInfo"]["SizeInMiB"].is_number())
    model += fmt::format(" {:.0f}GB", gpu["MemoryInfo"]["SizeInMiB"].get<double>() / 1024);
  return model;
}

/// One usable catalog row: an instance type in a zone.
struct CatalogRow {
  std::string region, zone;
  InstanceSpec spec;            // type, specs and on-demand price
  std::optional<double> spot;   // this zone's spot price; none when the row offers no spot
  std::string place;            // "line N"
};

/// A catalog's rows folded into one table row per region and type: one on-demand price, spot per zone.
class CatalogRows {
 public:
  explicit CatalogRows(SkippedRows& skipped) : skipped_(skipped) {}

  void add(const CatalogRow& row) {
    auto [it, first] = seen_.try_emplace({row.region, row.spec.type});
    Seen& seen = it->second;
    if (first) {
      seen.spec = row.spec;
      seen.place = row.place;
    } else if (seen.spec.vcpus != row.spec.vcpus || seen.spec.memory_gib != row.spec.memory_gib ||
               seen.spec.accelerators != row.spec.accelerators ||
               (seen.spec.on_demand && row.spec.on_demand && *seen.spec.on_demand != *row.spec.on_demand)) {
      return skipped_.skip("that disagree with an earlier row of their type and region", row.place,
                           fmt::format("{} in {} differs from {} (vCPUs, memory, accelerators or Price): one region, "
                                       "one on-demand price", row.spec.type, row.region, seen.place));
    } else if (!seen.spec.on_demand) {
      seen.spec.on_demand = row.spec.on_demand;  // a zone that lists no on-demand price takes the region's
    }
    if (!row.spot) return;
    if (!row.zone.empty() && !seen.spec.spot.zones.emplace(row.zone, ZonePrice{*row.spot, *row.spot, *row.spot}).second)
      return skipped_.skip("that repeat a zone", row.place, "zone " + row.zone + " appears twice for " + row.spec.type);
    seen.spot.push_back(*row.spot);
  }

  bool empty() const { return seen_.empty(); }

  /// Into `table`: spot min..max across zones, and the zones' median as the quote.
  void write(PriceTable& table, const ImportOptions& o) {
    for (auto& [key, seen] : seen_) {
      InstanceSpec& spec = row_for(table, key.first, key.second, o);
      const std::string source = spec.source;
      spec = std::move(seen.spec);
      spec.source = source;
      if (seen.spot.empty()) continue;
      const auto [lo, hi] = std::minmax_element(seen.spot.begin(), seen.spot.end());
      spec.spot.min = *lo;
      spec.spot.max = *hi;
      spec.spot.median = median_of(seen.spot);
    }
  }

 private:
  struct Seen {
    InstanceSpec spec;
    std::vector<double> spot;
    std::string place;
  };
  SkippedRows& skipped_;
  std::map<std::pair<std::string, std::string>, Seen> seen_;  // (region, type)
};

struct SkyPilotImport {
  std::string published;
  std::vector<std::string> notes;
};

using AcceleratorKey = std::tuple<std::string, double, std::string, std::string>;  // name, count, region, zone
using AcceleratorPrices = std::map<AcceleratorKey, std::pair<std::optional<double>, std::optional<double>>>;  // price, spot

/// A price of 0 (Vast's SpotPrice 0.00, GCP's unpriced rows) is no offer.
std::optional<double> offered(std::optional<double> price) { return price && *price > 0 ? price : std::nullopt; }

/// GCP's attachable accelerators (rows with an empty InstanceType): their on-demand and spot
/// price per zone, read in a pass of their own (when the first GPU machine type needs them)
/// because the catalog lists them after the machines that carry them. Rows the main pass will
/// skip are left to it to count.
AcceleratorPrices attachable_accelerators(const ImportFile& f, const ImportOptions& o, const std::map<std::string, size_t>& col,
                                          size_t fields, bool has_zone) {
  AcceleratorPrices out;
  CsvReader csv(f.text, f.path);
  std::vector<CsvField> row;
  csv.next(row);  // the header
  while (csv.next(row)) {
    if (row.size() != fields || !row[col.at("InstanceType")].text.empty()) continue;
    const std::string& name = row[col.at("AcceleratorName")].text;
    const auto count = decimal(row[col.at("AcceleratorCount")].text);
    const std::string& region = row[col.at("Region")].text;
    const std::string &on_demand = row[col.at("Price")].text, &spot = row[col.at("SpotPrice")].text;
    if (name.empty() || !count || region.empty() || (!on_demand.empty() && !decimal(on_demand)) || (!spot.empty() && !decimal(spot)))
      continue;
    const std::string zone = has_zone ? row[col.at("AvailabilityZone")].text : "";
    const std::string group = zone_region(region, zone);
    if (wanted(o, group)) out[{name, *count, group, zone}] = {offered(decimal(on_demand)), offered(decimal(spot))};
  }
  return out;
}

SkyPilotImport import_skypilot(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                               std::set<std::string>& regions_in_files) {
  SkyPilotImport out{declared_published(o, f), {}};
  CsvReader csv(f.text, f.path);
  std::vector<CsvField> header, row;
  if (!csv.next(header)) throw InputError(f.path, "line 1", "empty: expected a header line (InstanceType,...,Price,SpotPrice,Region)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i].text] = i;
  if (col.count("GPUInfo") && !col.count("GpuInfo")) col["GpuInfo"] = col["GPUInfo"];
  for (const char* need : {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "SpotPrice", "Region"})
    if (!col.count(need)) throw InputError(f.path, "line 1", std::string("no column ") + need + " in the header");
  const bool has_zone = col.count("AvailabilityZone") > 0, has_gpu_info = col.count("GpuInfo") > 0;

  SkippedRows skipped(f.path, o.strict);
  CatalogRows rows(skipped);
  std::optional<AcceleratorPrices> accelerators;  // read at the first GPU machine type
  std::set<AcceleratorKey> attachable, used;
  size_t joined = 0;
  std::string joined_example;
  size_t local_zone_rows = 0;
  std::string local_zone_example;
  while (csv.next(row)) {
    if (row.size() == 1 && row[0].text.empty()) continue;  // a blank line
    const std::string place = fmt::format("line {}", row[0].line);
    if (row.size() != header.size()) {
      skipped.skip("with the wrong number of fields", place, fmt::format("{} fields, the header has {}", row.size(), header.size()));
      continue;
    }
    auto field = [&](const std::string& c) -> const CsvField& { return row[col.at(c)]; };
    auto at = [&](const std::string& c) { return fmt::format("line {}, column {} ({})", field(c).line, field(c).column, c); };
    // A number, or none for an empty field; false when the field is not a number (the row is skipped).
    bool malformed = false;
    auto number = [&](const std::string& c) -> std::optional<double> {
      const std::string& text = field(c).text;
      if (text.empty() || malformed) return std::nullopt;
      const auto d = decimal(text);
      if (!d) {
        skipped.skip("with a malformed number", at(c), "expected a number, got '" + text + "'");
        malformed = true;
      }
      return d;
    };
    std::string region = field("Region").text;
    if (region.empty()) {
      skipped.skip("with no Region", at("Region"), "empty");
      continue;
    }
    const std::string zone = has_zone ? field("AvailabilityZone").text : "";
    const std::string own = zone_region(region, zone);
    regions_in_files.insert(own);
    if (!wanted(o, own)) continue;
    if (own != region && local_zone_rows++ == 0) local_zone_example = fmt::format("{} {} in {}", place, zone, own);
    region = own;

    CatalogRow r{region, zone, {}, std::nullopt, place};
    r.spec.type = field("InstanceType").text;
    const auto count = number("AcceleratorCount");
    const std::string accelerator = field("AcceleratorName").text;
    const auto on_demand = offered(number("Price"));
    r.spot = offered(number("SpotPrice"));
    if (r.spec.type.empty() && !accelerator.empty() && count && !malformed) {  // GCP: GPUs to attach
      attachable.insert({accelerator, *count, region, zone});
      continue;
    }
    const auto vcpus = number("vCPUs");
    const auto memory = number("MemoryGiB");
    if (malformed) continue;
    if (r.spec.type.empty()) {
      skipped.skip("with no InstanceType", at("InstanceType"), "empty");
      continue;
    }
    if (!vcpus || *vcpus <= 0 || !is_whole(*vcpus)) {
      skipped.skip("without a whole number of vCPUs", at("vCPUs"), "expected a whole number > 0, got '" + field("vCPUs").text + "'");
      continue;
    }
    if (!memory || *memory <= 0) {
      skipped.skip("without memory", at("MemoryGiB"), "expected a number > 0, got '" + field("MemoryGiB").text + "'");
      continue;
    }
    if (!on_demand && !r.spot) {
      const bool zero = !field("Price").text.empty() || !field("SpotPrice").text.empty();
      skipped.skip(zero ? "priced 0" : "with neither Price nor SpotPrice", place,
                   fmt::format("{} in {}{}: {}", r.spec.type, region, zone.empty() ? "" : " (" + zone + ")",
                               zero ? "no price above 0" : "neither Price nor SpotPrice"));
      continue;
    }
    r.spec.vcpus = static_cast<int>(*vcpus);
    r.spec.memory_gib = *memory;
    r.spec.on_demand = on_demand;
    r.spec.accelerators = count.value_or(0);
    if (r.spec.accelerators > 0)
      r.spec.accelerator_model = gpu_model(has_gpu_info ? field("GpuInfo").text : "", accelerator);
    // GPU machine types: the machine's row plus its GPUs' row of the same zone, for each market
    // both price. A catalog without accelerator rows prices its machines whole (as AWS's does).
    const auto gpus = accelerator.empty() ? gcp_attached_gpus(r.spec.type) : std::nullopt;
    if (gpus && !accelerators) accelerators = attachable_accelerators(f, o, col, header.size(), has_zone);
    if (gpus && !accelerators->empty()) {
      const AcceleratorKey key{gpus->name, gpus->count, r.region, r.zone};
      const auto a = accelerators->find(key);
      if (a == accelerators->end()) {
        skipped.skip("of GPU machine types whose GPUs the file does not price in their zone", place,
                     fmt::format("no {} x {} row for {} in {}", gpus->count, gpus->name, r.spec.type, zone.empty() ? region : zone));
        continue;
      }
      used.insert(key);
      const auto& [gpu_price, gpu_spot] = a->second;
      if (joined++ == 0)
        joined_example = fmt::format("{} in {}: {:g} + {:g} USD/h", r.spec.type, zone, r.spec.on_demand.value_or(0), gpu_price.value_or(0));
      r.spec.on_demand = r.spec.on_demand && gpu_price ? std::optional(*r.spec.on_demand + *gpu_price) : std::nullopt;
      r.spot = r.spot && gpu_spot ? std::optional(*r.spot + *gpu_spot) : std::nullopt;
      r.spec.accelerators = gpus->count;
      r.spec.accelerator_model = gpus->model;
      if (!r.spec.on_demand && !r.spot) {
        skipped.skip("of GPU machine types unpriced once joined", place,
                     fmt::format("{} in {}: the machine and its GPUs share no market", r.spec.type, zone));
        continue;
      }
    }
    rows.add(r);
  }
  if (rows.empty())
    throw InputError(f.path, "", "no usable rows" + (o.regions.empty() ? std::string() : fmt::format(" in {}", fmt::join(o.regions, ", "))) +
                                     (skipped.lines().empty() ? "" : ": " + skipped.lines().front()));
  rows.write(table, o);

  out.notes = skipped.lines();
  if (joined > 0)
    out.notes.push_back(fmt::format("priced {} rows of GPU machine types (a2, a3, a4, g2) as the machine's row plus the row of "
                                    "the GPUs its name fixes, in the same zone, e.g. {}",
                                    joined, joined_example));
  if (const size_t unused = attachable.size() - used.size(); unused > 0)
    out.notes.push_back(fmt::format("left out {} accelerator rows that no machine type's name attaches (TPUs; GPUs attachable "
                                    "to N1 machines in any number)", unused));
  if (local_zone_rows > 0)
    out.notes.push_back(fmt::format("kept {} rows of Local and Wavelength Zones as regions of their own, e.g. {}",
                                    local_zone_rows, local_zone_example));
  return out;
}

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

CsvReader::CsvReader(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {
  if (text_.rfind("\xEF\xBB\xBF", 0) == 0) i_ = 3;  // a UTF-8 byte-order mark
}

bool CsvReader::next(std::vector<CsvField>& row) {
  row.clear();
  if (i_ >= text_.size()) return false;
  CsvField field;
  bool quoted = false, field_started = false;
  auto start_field = [&] {
    if (!field_started) field.line = line_, field.column = column_, field_started = true;
  };
  auto end_field = [&] {
    start_field();
    row.push_back(std::move(field));
    field = CsvField{};
    field_started = false;
  };
  size_t quote_line = 0, quote_column = 0;
  for (; i_ < text_.size(); ++i_) {
    const char c = text_[i_];
    if (quoted) {
      if (c == '"' && i_ + 1 < text_.size() && text_[i_ + 1] == '"') {
        field.text += '"';
        ++i_, column_ += 2;
        continue;
      }
      if (c == '"') {
        quoted = false;
        ++column_;
        if (i_ + 1 < text_.size() && text_[i_ + 1] != ',' && text_[i_ + 1] != '\n' && text_[i_ + 1] != '\r')
          throw InputError(file_, fmt::format("line {}, column {}", line_, column_), "text after a closing quote");
        continue;
      }
      field.text += c;
      if (c == '\n') ++line_, column_ = 1;
      else ++column_;
      continue;
    }
    if (c == '"') {
      start_field();
      if (!field.text.empty()) throw InputError(file_, fmt::format("line {}, column {}", line_, column_), "a quote inside an unquoted field");
      quoted = true;
      quote_line = line_, quote_column = column_;
      ++column_;
    } else if (c == ',') {
      end_field();
      ++column_;
    } else if (c == '\r' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      end_field();
      ++i_, ++line_, column_ = 1;
      return true;
    } else {
      start_field();
      field.text += c;
      ++column_;
    }
  }
  if (quoted) throw InputError(file_, fmt::format("line {}, column {}", quote_line, quote_column), "a quoted field is never closed");
  end_field();
  return true;
}

}  // namespace pperf
