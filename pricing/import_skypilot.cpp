// SkyPilot's catalogs (vms.csv): AWS, GCP, Azure, Lambda, Vast and the rest.
#include "pricing/importers.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/input_error.h"

namespace pperf::importers {

namespace {

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

/// A catalog's columns, from its header line: where each field pperf reads is.
struct CatalogColumns {
  std::map<std::string, size_t> col;
  size_t fields = 0;
  bool has_zone = false, has_gpu_info = false;

  /// The header; an InputError at line 1 when a column pperf needs is missing.
  CatalogColumns(const std::vector<CsvField>& header, const ImportFile& f) : fields(header.size()) {
    for (size_t i = 0; i < header.size(); ++i) col[header[i].text] = i;
    if (col.count("GPUInfo") && !col.count("GpuInfo")) col["GpuInfo"] = col["GPUInfo"];
    for (const char* need : {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "SpotPrice", "Region"})
      if (!col.count(need)) throw InputError(f.path, "line 1", std::string("no column ") + need + " in the header");
    has_zone = col.count("AvailabilityZone") > 0;
    has_gpu_info = col.count("GpuInfo") > 0;
  }
};

/// A SkyPilot catalog read row by row into CatalogRows: rows pperf cannot use skipped (and
/// counted), GCP's GPU machine types joined with their GPUs' rows, what it did as notes.
class SkyPilotCatalog {
 public:
  SkyPilotCatalog(const ImportFile& f, const ImportOptions& o, const CatalogColumns& columns, std::set<std::string>& regions_in_files)
      : f_(f), o_(o), columns_(columns), regions_in_files_(regions_in_files), skipped_(f.path, o.strict), rows_(skipped_) {}

  /// One line of the file after the header.
  void add(const std::vector<CsvField>& row) {
    std::string accelerator;
    std::optional<CatalogRow> r = read(row, accelerator);
    if (r && join_gpus(*r, accelerator)) rows_.add(*r);
  }

  /// Into `table`; InputError when no row was usable.
  void write(PriceTable& table) {
    if (rows_.empty())
      throw InputError(f_.path, "", "no usable rows" + (o_.regions.empty() ? std::string() : fmt::format(" in {}", fmt::join(o_.regions, ", "))) +
                                        (skipped_.lines().empty() ? "" : ": " + skipped_.lines().front()));
    rows_.write(table, o_);
  }

  /// What was skipped, joined and kept apart, one line a kind.
  std::vector<std::string> notes() const {
    std::vector<std::string> notes = skipped_.lines();
    if (joined_ > 0)
      notes.push_back(fmt::format("priced {} rows of GPU machine types (a2, a3, a4, g2) as the machine's row plus the row of "
                                  "the GPUs its name fixes, in the same zone, e.g. {}",
                                  joined_, joined_example_));
    if (const size_t unused = attachable_.size() - used_.size(); unused > 0)
      notes.push_back(fmt::format("left out {} accelerator rows that no machine type's name attaches (TPUs; GPUs attachable "
                                  "to N1 machines in any number)", unused));
    if (local_zone_rows_ > 0)
      notes.push_back(fmt::format("kept {} rows of Local and Wavelength Zones as regions of their own, e.g. {}",
                                  local_zone_rows_, local_zone_example_));
    return notes;
  }

 private:
  /// The row as an instance type in a zone of a wanted region, with its own prices (its
  /// AcceleratorName in `accelerator`); nullopt for a row skipped, not wanted, or GPUs to attach.
  std::optional<CatalogRow> read(const std::vector<CsvField>& row, std::string& accelerator) {
    if (row.size() == 1 && row[0].text.empty()) return std::nullopt;  // a blank line
    const std::string place = fmt::format("line {}", row[0].line);
    if (row.size() != columns_.fields) {
      skipped_.skip("with the wrong number of fields", place, fmt::format("{} fields, the header has {}", row.size(), columns_.fields));
      return std::nullopt;
    }
    auto field = [&](const std::string& c) -> const CsvField& { return row[columns_.col.at(c)]; };
    auto at = [&](const std::string& c) { return fmt::format("line {}, column {} ({})", field(c).line, field(c).column, c); };
    // A number, or none for an empty field; false when the field is not a number (the row is skipped).
    bool malformed = false;
    auto number = [&](const std::string& c) -> std::optional<double> {
      const std::string& text = field(c).text;
      if (text.empty() || malformed) return std::nullopt;
      const auto d = decimal(text);
      if (!d) {
        skipped_.skip("with a malformed number", at(c), "expected a number, got '" + text + "'");
        malformed = true;
      }
      return d;
    };
    std::string region = field("Region").text;
    if (region.empty()) {
      skipped_.skip("with no Region", at("Region"), "empty");
      return std::nullopt;
    }
    const std::string zone = columns_.has_zone ? field("AvailabilityZone").text : "";
    const std::string own = zone_region(region, zone);
    regions_in_files_.insert(own);
    if (!wanted(o_, own)) return std::nullopt;
    if (own != region && local_zone_rows_++ == 0) local_zone_example_ = fmt::format("{} {} in {}", place, zone, own);
    region = own;

    CatalogRow r{region, zone, {}, std::nullopt, place};
    r.spec.type = field("InstanceType").text;
    const auto count = number("AcceleratorCount");
    accelerator = field("AcceleratorName").text;
    const auto on_demand = offered(number("Price"));
    r.spot = offered(number("SpotPrice"));
    if (r.spec.type.empty() && !accelerator.empty() && count && !malformed) {  // GCP: GPUs to attach
      attachable_.insert({accelerator, *count, region, zone});
      return std::nullopt;
    }
    const auto vcpus = number("vCPUs");
    const auto memory = number("MemoryGiB");
    if (malformed) return std::nullopt;
    if (r.spec.type.empty()) {
      skipped_.skip("with no InstanceType", at("InstanceType"), "empty");
      return std::nullopt;
    }
    if (!vcpus || *vcpus <= 0 || !is_whole(*vcpus)) {
      skipped_.skip("without a whole number of vCPUs", at("vCPUs"), "expected a whole number > 0, got '" + field("vCPUs").text + "'");
      return std::nullopt;
    }
    if (!memory || *memory <= 0) {
      skipped_.skip("without memory", at("MemoryGiB"), "expected a number > 0, got '" + field("MemoryGiB").text + "'");
      return std::nullopt;
    }
    if (!on_demand && !r.spot) {
      const bool zero = !field("Price").text.empty() || !field("SpotPrice").text.empty();
      skipped_.skip(zero ? "priced 0" : "with neither Price nor SpotPrice", place,
                    fmt::format("{} in {}{}: {}", r.spec.type, region, zone.empty() ? "" : " (" + zone + ")",
                                zero ? "no price above 0" : "neither Price nor SpotPrice"));
      return std::nullopt;
    }
    r.spec.vcpus = static_cast<int>(*vcpus);
    r.spec.memory_gib = *memory;
    r.spec.on_demand = on_demand;
    r.spec.accelerators = count.value_or(0);
    if (r.spec.accelerators > 0)
      r.spec.accelerator_model = gpu_model(columns_.has_gpu_info ? field("GpuInfo").text : "", accelerator);
    return r;
  }

  /// GPU machine types: the machine's row plus its GPUs' row of the same zone, for each market
  /// both price. A catalog without accelerator rows prices its machines whole (as AWS's does).
  /// False when the row is skipped.
  bool join_gpus(CatalogRow& r, const std::string& accelerator) {
    const auto gpus = accelerator.empty() ? gcp_attached_gpus(r.spec.type) : std::nullopt;
    if (gpus && !accelerators_) accelerators_ = attachable_accelerators(f_, o_, columns_.col, columns_.fields, columns_.has_zone);
    if (!gpus || accelerators_->empty()) return true;
    const AcceleratorKey key{gpus->name, gpus->count, r.region, r.zone};
    const auto a = accelerators_->find(key);
    if (a == accelerators_->end()) {
      skipped_.skip("of GPU machine types whose GPUs the file does not price in their zone", r.place,
                    fmt::format("no {} x {} row for {} in {}", gpus->count, gpus->name, r.spec.type, r.zone.empty() ? r.region : r.zone));
      return false;
    }
    used_.insert(key);
    const auto& [gpu_price, gpu_spot] = a->second;
    if (joined_++ == 0)
      joined_example_ = fmt::format("{} in {}: {:g} + {:g} USD/h", r.spec.type, r.zone, r.spec.on_demand.value_or(0), gpu_price.value_or(0));
    r.spec.on_demand = r.spec.on_demand && gpu_price ? std::optional(*r.spec.on_demand + *gpu_price) : std::nullopt;
    r.spot = r.spot && gpu_spot ? std::optional(*r.spot + *gpu_spot) : std::nullopt;
    r.spec.accelerators = gpus->count;
    r.spec.accelerator_model = gpus->model;
    if (!r.spec.on_demand && !r.spot) {
      skipped_.skip("of GPU machine types unpriced once joined", r.place,
                    fmt::format("{} in {}: the machine and its GPUs share no market", r.spec.type, r.zone));
      return false;
    }
    return true;
  }

  const ImportFile& f_;
  const ImportOptions& o_;
  const CatalogColumns& columns_;
  std::set<std::string>& regions_in_files_;
  SkippedRows skipped_;
  CatalogRows rows_;
  std::optional<AcceleratorPrices> accelerators_;  // read at the first GPU machine type
  std::set<AcceleratorKey> attachable_, used_;
  size_t joined_ = 0;
  std::string joined_example_;
  size_t local_zone_rows_ = 0;
  std::string local_zone_example_;
};

}  // namespace

SkyPilotImport import_skypilot(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                               std::set<std::string>& regions_in_files) {
  SkyPilotImport out{declared_published(o, f), {}};
  CsvReader csv(f.text, f.path);
  std::vector<CsvField> header, row;
  if (!csv.next(header)) throw InputError(f.path, "line 1", "empty: expected a header line (InstanceType,...,Price,SpotPrice,Region)");
  const CatalogColumns columns(header, f);
  SkyPilotCatalog catalog(f, o, columns, regions_in_files);
  while (csv.next(row)) catalog.add(row);
  catalog.write(table);
  out.notes = catalog.notes();
  return out;
}

}  // namespace pperf::importers
