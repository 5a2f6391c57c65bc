// AWS Price List bulk offer files (AmazonEC2, AmazonSageMaker), and `aws pricing get-products` output.
#include "pricing/importers.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <istream>
#include <map>
#include <streambuf>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/input_error.h"
#include "src/core/json_view.h"

namespace pperf::importers {

namespace {

struct OfferRow {
  std::string sku, region, type;
  int vcpus = 0;
  double memory_gib = 0;
  int gpus = 0;
  std::string gpu_model;
  std::string network;  // networkPerformance, "" when the product has none
};

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

/// The product's row when it is one pperf prices (EC2: on-demand Linux, shared tenancy, no
/// pre-installed software; SageMaker: an ML Instance of the component asked for) in a region
/// asked for; nullopt otherwise. Every region seen goes to `regions_in_files`.
std::optional<OfferRow> offer_row(const std::string& sku, const JsonView& product, bool ec2, const ImportOptions& o,
                                  std::set<std::string>& regions_in_files) {
  const std::string family = product.string_or("productFamily", "");
  const JsonView attrs = product.at("attributes");
  OfferRow row;
  row.sku = sku;
  if (ec2) {
    if (family != "Compute Instance" && family != "Compute Instance (bare metal)") return std::nullopt;
    if (attribute(attrs, "operatingSystem") != "Linux" || attribute(attrs, "tenancy") != "Shared" ||
        attribute(attrs, "preInstalledSw") != "NA" || attribute(attrs, "capacitystatus").value_or("Used") != "Used")
      return std::nullopt;
    row.type = attrs.at("instanceType").as_string();
  } else {
    if (family != "ML Instance" || attribute(attrs, "component") != o.sagemaker_component) return std::nullopt;
    row.type = attrs.at("instanceName").as_string();
  }
  const auto region = attrs.find("regionCode");
  if (!region) attrs.fail("no regionCode (the region's code, e.g. us-east-1): is this a current offer file?");
  row.region = region->as_string();
  regions_in_files.insert(row.region);
  if (!wanted(o, row.region)) return std::nullopt;
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
  return row;
}

/// Hourly prices that take effect after the import date: counted, the first kept as an example.
struct UpcomingPrices {
  size_t count = 0;
  std::string example;
};

/// The hourly on-demand price of `row` (terms.OnDemand.<sku>.<term>.priceDimensions.<rate> in
/// Hrs): the term in effect on the import date, the latest effectiveDate not after it. A term
/// that starts later (AWS publishes an upcoming price beside the current one) is noted, not used.
std::optional<double> hourly_price(const JsonView& terms, const OfferRow& row, const ImportOptions& o, UpcomingPrices& upcoming) {
  std::optional<double> usd;
  std::string usd_effective;
  for (const auto& term : terms.keys()) {
    const std::string effective = terms.at(term).string_or("effectiveDate", "").substr(0, 10);
    const JsonView dims = terms.at(term).at("priceDimensions");
    for (const auto& rate : dims.keys()) {
      const JsonView dim = dims.at(rate);
      if (dim.at("unit").as_string() != "Hrs") continue;
      const double price = positive_decimal_at(dim.at("pricePerUnit").at("USD"), "a price in USD");
      if (!effective.empty() && effective > o.imported) {
        if (upcoming.count++ == 0) upcoming.example = fmt::format("{} in {}: {:g} USD/h from {}", row.type, row.region, price, effective);
        continue;
      }
      if (usd && *usd != price && effective == usd_effective)
        dim.at("pricePerUnit").at("USD").fail(fmt::format("a second hourly price ({} USD/h) for SKU {} (first {} USD/h)", price, row.sku, *usd));
      if (!usd || effective > usd_effective) usd = price, usd_effective = effective;
    }
  }
  return usd;
}

/// `row` at `usd` an hour into `table`.
void add_offer_row(PriceTable& table, const OfferRow& row, double usd, const ImportOptions& o) {
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
  spec.on_demand = usd;
}

}  // namespace

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
  size_t imported = 0;
  UpcomingPrices upcoming;
  for (const auto& sku : products.keys()) {
    const std::optional<OfferRow> row = offer_row(sku, products.at(sku), ec2, o, regions_in_files);
    if (!row) continue;
    const auto terms = on_demand.find(sku);
    if (!terms) continue;  // reserved-only products have no on-demand term
    const std::optional<double> usd = hourly_price(*terms, *row, o, upcoming);
    if (!usd) continue;
    const auto key = std::make_pair(row->region, row->type);
    if (auto it = seen.find(key); it != seen.end()) {
      if (it->second.first != *usd)
        products.at(sku).fail(fmt::format("{} in {} is priced {} USD/h here and {} USD/h by SKU {}", row->type, row->region, *usd,
                                          it->second.first, it->second.second));
      continue;
    }
    seen[key] = {*usd, sku};
    add_offer_row(table, *row, *usd, o);
    ++imported;
  }
  if (imported == 0)
    throw InputError(f.path, "/products",
                     (ec2 ? "no on-demand Linux, shared-tenancy instance without pre-installed software in " +
                                (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", ")))
                          : "no ML Instance of component " + o.sagemaker_component + " with an on-demand price in " +
                                (o.regions.empty() ? std::string("any region") : fmt::format("{}", fmt::join(o.regions, ", ")))) +
                         fmt::format(" ({} products read)", products.keys().size()));
  if (upcoming.count > 0)
    notes.push_back(fmt::format("left out {} upcoming hourly prices (a term whose effectiveDate is after the import date {}), "
                                "e.g. {}", upcoming.count, o.imported, upcoming.example));
  return published;
}

}  // namespace pperf::importers
