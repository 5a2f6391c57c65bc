// `pperf prices import`'s parsers over the fixtures in tests/data/prices (small files in each
// provider's format, written for these tests), the table format they write, and what pricing
// does with a spot range: the cost interval and the improvement interval include it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "pricing/cost_model.h"
#include "pricing/interruption_table.h"
#include "pricing/price_import.h"
#include "pricing/price_table.h"
#include "test_helpers.h"

using namespace pperf;

namespace {

const std::string kDir = pperf::testing::source_dir() + "/tests/data/prices/";

ImportFile fixture(const std::string& name) { return {kDir + name, read_text_file(kDir + name)}; }

ImportOptions options(ImportFormat format, std::vector<std::string> regions = {}) {
  ImportOptions o;
  o.format = format;
  o.regions = std::move(regions);
  o.imported = "2026-11-23";
  return o;
}

/// The error line of importing `file`, with the fixture directory cut off.
std::string import_error(const std::string& file, ImportFormat format, const std::string& published = "", bool strict = false) {
  PriceTable table;
  ImportOptions o = options(format);
  o.published = published;
  o.strict = strict;
  try {
    if (format == ImportFormat::aws_spot_history) import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
    if (format == ImportFormat::spot_advisor) import_spot_advisor({fixture(file)}, o, "n", "s", "");
    else import_prices(table, {fixture(file)}, o);
  } catch (const InputError& e) {
    std::string what = e.what();
    const auto at = what.find(kDir);
    return at == std::string::npos ? what : what.erase(at, kDir.size());
  }
  return "no error";
}

/// The table written and read back (the file format is what `pperf cost` reads).
PriceTable round_trip(const PriceTable& table, const std::string& region) {
  pperf::testing::TempDir dir;
  return load_price_table(dir.write("t.json", price_table_json(table)), region);
}

}  // namespace

TEST(PriceImport, AwsOfferKeepsLinuxSharedNoSoftwareUsedCapacityPerRegion) {
  PriceTable table;
  table.name = "t";
  table.currency = "USD";
  import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
  ASSERT_EQ(table.region_names(), (std::vector<std::string>{"eu-west-1", "us-east-1"}));
  const auto& use1 = table.regions.at("us-east-1");
  // Windows, dedicated, SQL, capacity-reservation and reserved-only SKUs are left out.
  EXPECT_EQ(use1.size(), 3u);
  EXPECT_EQ(*use1.at("g6e.xlarge").on_demand, 1.861);
  EXPECT_EQ(use1.at("g6e.xlarge").accelerators, 1);
  EXPECT_EQ(use1.at("p5.48xlarge").memory_gib, 2048);  // "2,048 GiB"
  EXPECT_EQ(use1.at("p5.48xlarge").vcpus, 192);
  EXPECT_EQ(*use1.at("p5.48xlarge").on_demand, 55.04);
  EXPECT_EQ(*use1.at("c7i.large").on_demand, 0.0893);
  EXPECT_EQ(*table.regions.at("eu-west-1").at("g6e.xlarge").on_demand, 2.093);
  ASSERT_EQ(table.sources.size(), 1u);
  EXPECT_EQ(table.sources[0].file, "ec2-offer.json");
  EXPECT_EQ(table.sources[0].format, "aws-offer");
  EXPECT_EQ(table.sources[0].sha256, sha256_hex(read_text_file(kDir + "ec2-offer.json")));
  EXPECT_EQ(table.sources[0].published, "2026-10-15");
  EXPECT_EQ(table.published, "2026-10-15");
  EXPECT_EQ(table.retrieved, "2026-11-23");

  const PriceTable eu = round_trip(table, "eu-west-1");
  EXPECT_EQ(eu.region, "eu-west-1");
  EXPECT_EQ(*eu.find("g6e.xlarge")->on_demand, 2.093);
  EXPECT_EQ(eu.published, "2026-10-15");
  EXPECT_EQ(eu.sources.size(), 1u);
}

TEST(PriceImport, RegionFilterAndSageMakerComponent) {
  PriceTable table;
  import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer, {"eu-west-1"}));
  EXPECT_EQ(table.region_names(), std::vector<std::string>{"eu-west-1"});

  PriceTable sm;
  import_prices(sm, {fixture("sagemaker-offer.json")}, options(ImportFormat::aws_offer));
  const auto& rows = sm.regions.at("eu-west-1");
  EXPECT_EQ(*rows.at("ml.g6e.xlarge").on_demand, 2.333) << "Training, not Hosting";
  EXPECT_EQ(rows.at("ml.g6e.xlarge").accelerator_model, "NVIDIA L40S 48GB");
  EXPECT_EQ(*rows.at("ml.m7i.xlarge").on_demand, 0.242);
  ImportOptions hosting = options(ImportFormat::aws_offer);
  hosting.sagemaker_component = "Hosting";
  PriceTable h;
  import_prices(h, {fixture("sagemaker-offer.json")}, hosting);
  EXPECT_EQ(*h.regions.at("eu-west-1").at("ml.g6e.xlarge").on_demand, 2.262);
}

TEST(PriceImport, SpotHistoryGivesMinMedianMaxPerTypeAndZoneOverTheWindow) {
  PriceTable table;
  import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
  import_prices(table, {fixture("spot-history.json")}, options(ImportFormat::aws_spot_history));
  const SpotPrice& s = table.regions.at("us-east-1").at("g6e.xlarge").spot;
  // Linux points 0.61 0.63 0.65 | 0.72 0.76 | 0.68 1.90 (the Windows 1.50 is not counted).
  EXPECT_EQ(*s.min, 0.61);
  EXPECT_EQ(*s.median, 0.68);
  EXPECT_EQ(*s.max, 1.90);
  ASSERT_EQ(s.zones.size(), 3u);
  EXPECT_EQ(s.zones.at("us-east-1a").median, 0.63);
  EXPECT_DOUBLE_EQ(s.zones.at("us-east-1b").median, 0.74);
  EXPECT_EQ(s.zones.at("us-east-1c").max, 1.90);
  EXPECT_EQ(s.window_from, "2026-10-10T00:00:00Z");
  EXPECT_EQ(s.window_to, "2026-10-14T12:00:00Z");
  // On-demand stays from the offer; the table's date is its oldest source's.
  EXPECT_EQ(*table.regions.at("us-east-1").at("g6e.xlarge").on_demand, 1.861);
  EXPECT_EQ(table.sources.size(), 2u);
  EXPECT_EQ(table.sources[1].published, "2026-10-15");

  const PriceTable t = round_trip(table, "us-east-1");
  const Quote q = *quote(*t.find("g6e.xlarge"), Market::spot);
  EXPECT_EQ(q.basis, "spot_median");
  EXPECT_EQ(q.usd_per_hour, 0.68);
  EXPECT_EQ(*q.range, (std::array<double, 2>{0.61, 1.90}));
  EXPECT_EQ(q.cheapest_zone, "us-east-1a");
  EXPECT_EQ(q.dearest_zone, "us-east-1c");
  // One price point: a point quote, no range.
  const Quote p5 = *quote(*t.find("p5.48xlarge"), Market::spot);
  EXPECT_EQ(p5.usd_per_hour, 21.33);
  EXPECT_FALSE(p5.range);
  EXPECT_FALSE(quote(*t.find("g6e.xlarge"), Market::on_demand)->range) << "on-demand keeps a point price";
}

TEST(PriceImport, SkyPilotCatalogAnyCloudZonesAndQuotedGpuInfo) {
  PriceTable table;
  ImportOptions o = options(ImportFormat::skypilot);
  o.published = "2026-09-30";
  import_prices(table, {fixture("vms.csv")}, o);
  EXPECT_EQ(table.region_names(), (std::vector<std::string>{"eu-west-1", "us-central1", "us-east-1"}));
  const InstanceSpec& g6e = table.regions.at("us-east-1").at("g6e.xlarge");
  EXPECT_EQ(*g6e.on_demand, 1.861);
  EXPECT_EQ(*g6e.spot.min, 0.588);
  EXPECT_EQ(*g6e.spot.max, 0.702);
  EXPECT_EQ(*g6e.spot.median, 0.631) << "the region's spot quote is the median of its zones' prices";
  EXPECT_EQ(g6e.spot.zones.size(), 3u);
  EXPECT_EQ(g6e.accelerator_model, "NVIDIA L40S 48GB");
  const InstanceSpec& a2 = table.regions.at("us-central1").at("a2-highgpu-1g");
  EXPECT_EQ(a2.accelerator_model, "NVIDIA A100 40GB");
  EXPECT_EQ(a2.vcpus, 12);
  EXPECT_EQ(*a2.spot.min, 1.1);
  EXPECT_EQ(table.regions.at("us-east-1").at("c7i.large").accelerators, 0);
  EXPECT_EQ(table.published, "2026-09-30");

  const Quote q = *quote(*round_trip(table, "us-east-1").find("g6e.xlarge"), Market::spot);
  EXPECT_EQ(q.basis, "spot_median");
  EXPECT_EQ(q.usd_per_hour, 0.631);
  ASSERT_TRUE(q.range);
  EXPECT_EQ((*q.range)[0], 0.588);
  EXPECT_EQ((*q.range)[1], 0.702);
  EXPECT_EQ(q.cheapest_zone, "use1-az4");
  EXPECT_EQ(q.dearest_zone, "use1-az2");

  ImportOptions unknown = o;
  unknown.published = "unknown";
  PriceTable u;
  import_prices(u, {fixture("vms.csv")}, unknown);
  EXPECT_EQ(u.published, "");
}

TEST(PriceImport, SpotAdvisorMakesAnInterruptionTable) {
  pperf::testing::TempDir dir;
  ImportOptions o = options(ImportFormat::spot_advisor);
  o.published = "2026-11-01";
  const std::string path = dir.write("rates.json", import_spot_advisor({fixture("spot-advisor.json")}, o, "rates", "test", ""));
  const InterruptionTable t = load_interruption_table(path);
  EXPECT_EQ(t.snapshot, "2026-11-01");
  EXPECT_EQ(t.find("us-east-1", "g6e.xlarge")->bucket, "15-20%");
  EXPECT_EQ(t.find("us-east-1", "p5.48xlarge")->bucket, ">20%");
  EXPECT_EQ(t.find("eu-west-1", "g6e.xlarge")->bucket, "<5%");
  // The labels' buckets (<5, 5-10, 10-15, 15-20, >20 %), not the bar sizes in `max` (5, 11, 16,
  // 22): midpoints, the open one its bound plus the last width.
  EXPECT_EQ(t.buckets.at("<5%").value_pct, 2.5);
  EXPECT_EQ(t.buckets.at("5-10%").value_pct, 7.5);
  EXPECT_EQ(t.buckets.at("15-20%").value_pct, 17.5);
  EXPECT_EQ(t.buckets.at(">20%").value_pct, 25);
  EXPECT_DOUBLE_EQ(t.find("us-east-1", "g6e.xlarge")->interruptions_per_month, -std::log1p(-0.175));
}

TEST(PriceImport, EveryMistakeNamesTheFileAndThePlace) {
  EXPECT_EQ(import_error("bad-offer-price.json", ImportFormat::aws_offer),
            "bad-offer-price.json: /terms/OnDemand/TESTEC2A0000003/TESTEC2A0000003.JRTCKXETXF/priceDimensions/"
            "TESTEC2A0000003.JRTCKXETXF.6YS6EN2CT7/pricePerUnit/USD: expected a price in USD as a positive decimal string, "
            "got '55,04'");
  EXPECT_EQ(import_error("bad-offer-no-region.json", ImportFormat::aws_offer),
            "bad-offer-no-region.json: /products/TESTEC2A0000004/attributes: no regionCode (the region's code, e.g. "
            "us-east-1): is this a current offer file?");
  EXPECT_EQ(import_error("bad-offer-code.json", ImportFormat::aws_offer).substr(0, 54),
            "bad-offer-code.json: /offerCode: 'AmazonS3' is not one");
  EXPECT_EQ(import_error("bad-not-json.json", ImportFormat::aws_offer),
            "bad-not-json.json: not JSON: line 2, column 1: syntax error while parsing object key - unexpected end of input; "
            "expected string literal");
  EXPECT_EQ(import_error("bad-spot-history-price.json", ImportFormat::aws_spot_history),
            "bad-spot-history-price.json: /SpotPriceHistory/4/SpotPrice: expected a spot price in USD/h as a positive "
            "decimal string, got '-0.76'");
  EXPECT_EQ(import_error("bad-spot-history-zone.json", ImportFormat::aws_spot_history),
            "bad-spot-history-zone.json: /SpotPriceHistory/2/AvailabilityZone: expected an availability zone name such "
            "as us-east-1a, got 'us-east-1'");
  EXPECT_EQ(import_error("bad-vms-number.csv", ImportFormat::skypilot, "2026-01-01", true),
            "bad-vms-number.csv: line 6, column 29 (SpotPrice): expected a number, got '0.03.50' (without --strict such "
            "rows are skipped and counted)");
  EXPECT_EQ(import_error("bad-vms-quote.csv", ImportFormat::skypilot, "2026-01-01"),
            "bad-vms-quote.csv: line 4, column 30: a quoted field is never closed");
  EXPECT_EQ(import_error("bad-vms-header.csv", ImportFormat::skypilot, "2026-01-01"),
            "bad-vms-header.csv: line 1: no column SpotPrice in the header");
  EXPECT_EQ(import_error("vms.csv", ImportFormat::skypilot),
            "--published: vms.csv: a skypilot file records no publication date: give --published YYYY-MM-DD (or unknown)");
  EXPECT_EQ(import_error("bad-spot-advisor-range.json", ImportFormat::spot_advisor, "2026-01-01"),
            "bad-spot-advisor-range.json: /spot_advisor/eu-west-1/Linux/g6e.xlarge/r: range index 7 is not in /ranges");
  // Spot history for a type the base does not describe.
  PriceTable empty;
  try {
    import_prices(empty, {fixture("spot-history.json")}, options(ImportFormat::aws_spot_history));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("which the base table does not describe"), std::string::npos) << e.what();
  }
}

namespace {
/// Every row a CsvReader reads from `text`.
std::vector<std::vector<CsvField>> csv_rows(const std::string& text) {
  CsvReader reader(text, "f");
  std::vector<std::vector<CsvField>> rows;
  for (std::vector<CsvField> row; reader.next(row);) rows.push_back(row);
  return rows;
}
}  // namespace

TEST(PriceImport, CsvReaderQuotesAndPositions) {
  const auto rows = csv_rows("a,\"b,\"\"c\"\"\",d\r\n\"multi\nline\",x\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1].text, "b,\"c\"");
  EXPECT_EQ(rows[0][2].column, 13u);
  EXPECT_EQ(rows[1][0].text, "multi\nline");
  EXPECT_EQ(rows[1][1].line, 3u);
  EXPECT_THROW(csv_rows("a,\"b\"c\n"), InputError);
}

TEST(PriceTableRegions, AMultiRegionTableNeedsARegion) {
  PriceTable table;
  table.name = "multi";
  import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
  pperf::testing::TempDir dir;
  const std::string path = dir.write("multi.json", price_table_json(table));
  try {
    load_price_table(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": /regions: holds 2 regions (eu-west-1, us-east-1): choose one (pricing.region, --region)");
  }
  try {
    load_price_table(path, "eu-west-2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": /regions: no region 'eu-west-2' in price table multi (it has eu-west-1, us-east-1) (did you mean 'eu-west-1'?)");
  }
  // The same table gives the same bytes (a re-import reproduces a shipped table exactly).
  EXPECT_EQ(price_table_json(read_price_table(path)), price_table_json(table));
}

TEST(PriceTableAge, StaleUnknownAndFresh) {
  PriceTable t;
  t.name = "t";
  t.retrieved = "2026-11-01";
  t.published = "2026-08-01";
  EXPECT_EQ(days_between("2026-08-01", "2026-11-23"), 114);
  EXPECT_EQ(days_between("2024-02-28", "2024-03-01"), 2);
  EXPECT_EQ(staleness_warning(t, 90, "2026-11-23"),
            "price table t was published 2026-08-01 (114 days ago, more than pricing.max_age_days 90): prices may have "
            "changed; import current ones with `pperf prices import`");
  EXPECT_EQ(staleness_warning(t, 120, "2026-11-23"), "");
  t.published = "";
  EXPECT_NE(staleness_warning(t, 90, "2026-11-23").find("does not record when its prices were published"), std::string::npos);
}

TEST(PriceTableDiff, ListsChangedAddedAndRemovedPrices) {
  PriceTable before, after;
  import_prices(before, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
  after = before;
  after.regions["us-east-1"]["g6e.xlarge"].on_demand = 1.5;
  after.regions["us-east-1"].erase("c7i.large");
  const auto changes = diff_tables(before, after);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].type, "c7i.large");
  EXPECT_EQ(*changes[0].before, 0.0893);
  EXPECT_FALSE(changes[0].after);
  EXPECT_EQ(changes[1].type, "g6e.xlarge");
  EXPECT_EQ(changes[1].what, "on_demand");
  EXPECT_EQ(*changes[1].after, 1.5);
  EXPECT_TRUE(diff_tables(before, before).empty());
}

TEST(SpotSpread, CostIntervalSpansTheCheapestAndDearestPrice) {
  PricedGroup spot{"g6e.xlarge", 4, "dnn", Market::spot, 0.68, "spot_median", std::array<double, 2>{0.61, 1.90}, "a", "c"};
  PricedGroup data{"c7i.large", 1, "data", Market::on_demand, 0.0893, "on_demand", std::nullopt, "", ""};
  CostInput in;
  in.groups = {spot, data};
  in.step = StepTimeEstimate{360, std::nullopt, 360, std::array<double, 2>{350, 370}};
  const Cost c = price(in);
  EXPECT_DOUBLE_EQ(c.usd_per_hour, 4 * 0.68 + 0.0893);
  EXPECT_DOUBLE_EQ((*c.usd_per_hour_range)[0], 4 * 0.61 + 0.0893);
  EXPECT_DOUBLE_EQ((*c.usd_per_hour_range)[1], 4 * 1.90 + 0.0893);
  EXPECT_DOUBLE_EQ((*c.usd_per_step_ci95)[0], (4 * 0.61 + 0.0893) / 3.6e6 * 350);
  EXPECT_DOUBLE_EQ((*c.usd_per_step_ci95)[1], (4 * 1.90 + 0.0893) / 3.6e6 * 370);
  EXPECT_LT((*c.usd_per_step_ci95)[0], c.usd_per_step);
  EXPECT_GT((*c.usd_per_step_ci95)[1], c.usd_per_step);

  // A given step time: the interval is the price spread alone; on-demand alone has none.
  in.step = StepTimeEstimate{360, std::nullopt, 360, std::nullopt};
  const Cost given = price(in);
  EXPECT_DOUBLE_EQ((*given.usd_per_step_ci95)[1], (4 * 1.90 + 0.0893) / 3.6e6 * 360);
  in.groups = {data};
  EXPECT_FALSE(price(in).usd_per_step_ci95);
  EXPECT_FALSE(price(in).usd_per_hour_range);

  // Improvement against an on-demand baseline: from the dearest to the cheapest spot price.
  CostInput base_in;
  base_in.groups = {PricedGroup{"g6e.12xlarge", 1, "dnn", Market::on_demand, 10.0, "on_demand", std::nullopt, "", ""}};
  base_in.step = StepTimeEstimate{300, std::nullopt, 300, std::nullopt};
  const Cost base = price(base_in);
  const StepTimeEstimate cand_step{360, std::nullopt, 360, std::nullopt}, base_step{300, std::nullopt, 300, std::nullopt};
  const Comparison cmp = compare({given, cand_step, nullptr}, {base, base_step, nullptr}, false);
  const double ratio = 360.0 / 300;
  EXPECT_DOUBLE_EQ(*cmp.improvement_pct, (1 - given.usd_per_hour / 10.0 * ratio) * 100);
  EXPECT_DOUBLE_EQ((*cmp.improvement_pct_ci95)[0], (1 - (4 * 1.90 + 0.0893) / 10.0 * ratio) * 100);
  EXPECT_DOUBLE_EQ((*cmp.improvement_pct_ci95)[1], (1 - (4 * 0.61 + 0.0893) / 10.0 * ratio) * 100);
  EXPECT_LT((*cmp.improvement_pct_ci95)[0], *cmp.improvement_pct);
  EXPECT_GT((*cmp.improvement_pct_ci95)[1], *cmp.improvement_pct);
}

// networkPerformance as AWS words it: a fixed figure is the sustained bandwidth, "Up to" a burst
// ceiling that says nothing of the baseline; words without a figure give none.
TEST(PriceImport, NetworkPerformanceFiguresAndBursts) {
  const auto fixed = parse_network_performance("25 Gigabit");
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->gbps, 25);
  EXPECT_FALSE(fixed->burst);
  EXPECT_EQ(parse_network_performance("4x 100 Gigabit")->gbps, 400);
  EXPECT_EQ(parse_network_performance("3200 Gigabit")->gbps, 3200);
  const auto burst = parse_network_performance("Up to 12.5 Gigabit");
  ASSERT_TRUE(burst);
  EXPECT_EQ(burst->gbps, 12.5);
  EXPECT_TRUE(burst->burst);
  for (const char* none : {"Moderate", "High", "Low to Moderate", "", "25 Megabit", "-1 Gigabit", "0 Gigabit"})
    EXPECT_FALSE(parse_network_performance(none)) << none;
}

// The offer file AWS publishes (an excerpt, from opencost's tests: $PPERF_REAL_DATA/prices) words
// its figures so: m5.large "Up to 10 Gigabit" (a burst), p3.8xlarge "10 Gigabit" (fixed).
TEST(PriceImport, NetworkPerformanceOfARealOfferFile) {
  const char* env = std::getenv("PPERF_REAL_DATA");
  const std::string path = std::string(env ? env : pperf::testing::source_dir() + "/../shared/real-data") +
                           "/prices/opencost-ec2-us-east-2-excerpt.commafixed.offer.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "real data not here: " << path;
  const nlohmann::json offer = nlohmann::json::parse(read_text_file(path));
  std::map<std::string, std::optional<NetworkPerformance>> by_type;
  for (const auto& [sku, product] : offer.at("products").items())
    if (product.at("attributes").contains("networkPerformance"))
      by_type[product.at("attributes").at("instanceType").get<std::string>()] =
          parse_network_performance(product.at("attributes").at("networkPerformance").get<std::string>());
  ASSERT_EQ(by_type.size(), 2u);
  ASSERT_TRUE(by_type.at("m5.large"));
  EXPECT_TRUE(by_type.at("m5.large")->burst);
  EXPECT_EQ(by_type.at("m5.large")->gbps, 10);
  ASSERT_TRUE(by_type.at("p3.8xlarge"));
  EXPECT_FALSE(by_type.at("p3.8xlarge")->burst);
  EXPECT_EQ(by_type.at("p3.8xlarge")->gbps, 10);
}

// A links file sets each named type's figure (and SageMaker's ml. twin), names the rows left
// without one, and refuses a figure <= 0 naming its key.
TEST(PriceImport, LinkFiguresFromALinksFile) {
  PriceTable table;
  table.name = "t";
  table.currency = "USD";
  import_prices(table, {fixture("ec2-offer.json")}, options(ImportFormat::aws_offer));
  pperf::testing::TempDir dir;
  const std::string links = dir.write("links.json", R"({"source": "hand", "published": null, "types": {
      "p5.48xlarge": {"gbps": 3200, "basis": "fixed"}, "ml.none": {"gbps": 1, "basis": "unused"}}})");
  apply_link_figures(table, {links, read_text_file(links)}, "2026-11-29");
  const auto& use1 = table.regions.at("us-east-1");
  EXPECT_EQ(*use1.at("p5.48xlarge").link_gbps, 3200);
  EXPECT_EQ(use1.at("p5.48xlarge").link_basis, "fixed");
  EXPECT_FALSE(use1.at("c7i.large").link_gbps);
  ASSERT_EQ(table.sources.back().format, "links");
  EXPECT_NE(table.sources.back().notes.at(0).find("no link figure for c7i.large, g6e.xlarge"), std::string::npos)
      << table.sources.back().notes.at(0);
  const PriceTable back = round_trip(table, "us-east-1");
  EXPECT_EQ(*back.find("p5.48xlarge")->link_gbps, 3200);
  const std::string bad = dir.write("bad.json", R"({"source": "", "published": null, "types": {"x": {"gbps": 0, "basis": "b"}}})");
  try {
    apply_link_figures(table, {bad, read_text_file(bad)}, "2026-11-29");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/types/x/gbps"), std::string::npos) << e.what();
  }
}
