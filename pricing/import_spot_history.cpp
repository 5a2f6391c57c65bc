// `aws ec2 describe-spot-price-history --output json`.
#include "pricing/importers.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/input_error.h"
#include "src/core/json_view.h"

namespace pperf::importers {

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

}  // namespace pperf::importers
