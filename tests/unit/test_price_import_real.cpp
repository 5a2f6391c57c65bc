// `pperf prices import` on the providers' own files: verbatim excerpts of the public catalogs in
// $PPERF_REAL_DATA/prices/excerpts (origin, commit and offsets in the README files there; skipped
// where that folder is absent), and the figures
// they fix: GCP's GPU machines priced with their attached GPUs, AWS's fractional GPUs and unpriced
// rows, Local Zones apart from their region, zone medians as spot quotes, the Advisor's buckets.
#include <gtest/gtest.h>

#include <cmath>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "pricing/interruption_table.h"
#include "pricing/price_import.h"
#include "pricing/price_table.h"
#include "test_helpers.h"

using namespace pperf;

namespace {

ImportFile real(const std::string& name) {
  const std::string path = pperf::testing::real_data_dir() + "/prices/excerpts/" + name;
  return {path, read_text_file(path)};
}

struct Imported {
  PriceTable table;
  ImportReport report;
};

Imported import_real(const std::string& name, std::vector<std::string> regions = {}, bool strict = false) {
  ImportOptions o;
  o.format = name.find("vms.csv") != std::string::npos ? ImportFormat::skypilot : ImportFormat::aws_offer;
  o.regions = std::move(regions);
  o.published = "unknown";
  o.imported = "2026-11-26";
  o.strict = strict;
  Imported out;
  out.report = import_prices(out.table, {real(name)}, o);
  return out;
}

bool has_warning(const ImportReport& r, const std::string& text) {
  for (const auto& w : r.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Every test here reads the real files: skipped, saying where they were looked for, without them.
class RealCatalogs : public ::testing::Test {
 protected:
  void SetUp() override { PPERF_NEEDS_REAL_DATA(); }
};

}  // namespace

TEST_F(RealCatalogs, GcpGpuMachinesArePricedWithTheirAttachedGpus) {
  const Imported gcp = import_real("gcp-vms.csv", {"us-central1"});
  const RegionInstances& us = gcp.table.regions.at("us-central1");
  // Machine row + accelerator row of the same zone (README-gcp.md): on demand and spot.
  struct Expect {
    const char* type;
    double gpus;
    const char* model;
    double on_demand, spot;
  };
  for (const Expect& e : {Expect{"a2-highgpu-8g", 8, "NVIDIA A100 40GB", 5.91582 + 23.47126, 2.36604 + 9.1776},
                          Expect{"a2-ultragpu-8g", 8, "NVIDIA A100 80GB", 8.79698 + 14.76958, 3.51864 + 12.5696},
                          Expect{"a3-highgpu-8g", 8, "NVIDIA H100 80GB", 9.46006 + 33.60609, 2.17547 + 18.024},
                          Expect{"g2-standard-4", 1, "NVIDIA L4 24GB", 0.14679 + 0.56004, 0.05874 + 0.2231}}) {
    SCOPED_TRACE(e.type);
    const InstanceSpec& s = us.at(e.type);
    EXPECT_EQ(s.accelerators, e.gpus);
    EXPECT_EQ(s.accelerator_model, e.model);
    EXPECT_EQ(*s.on_demand, e.on_demand);
    EXPECT_EQ(*s.spot.min, e.spot);
    EXPECT_EQ(*s.spot.median, e.spot);
    EXPECT_EQ(*s.spot.max, e.spot);
  }
  EXPECT_NEAR(*us.at("a2-highgpu-8g").on_demand, 29.38708, 1e-9) << "not the VM-only 5.91582";
  EXPECT_EQ(us.at("g2-standard-48").accelerators, 4);
  EXPECT_EQ(us.at("n2-standard-8").accelerators, 0);
  // Each warning line is also in the table's sources, as it was printed.
  const auto& notes = gcp.table.sources.at(0).notes;
  ASSERT_EQ(gcp.report.warnings.size(), notes.size());
  for (size_t i = 0; i < notes.size(); ++i) EXPECT_EQ(gcp.report.warnings[i], "gcp-vms.csv: " + notes[i]);
  EXPECT_TRUE(has_warning(gcp.report, "as the machine's row plus the row of the GPUs its name fixes, in the same zone"));
}

TEST_F(RealCatalogs, GcpWholeCatalogImportsAndCountsWhatItLeavesOut) {
  const Imported gcp = import_real("gcp-vms.csv");
  EXPECT_EQ(gcp.table.region_names(),
            (std::vector<std::string>{"asia-northeast1", "asia-northeast2", "asia-northeast3", "asia-southeast2",
                                      "australia-southeast1", "australia-southeast2", "europe-west4", "us-central1",
                                      "us-central2", "us-east4"}));
  // A machine whose zone has no row for its GPUs is left out there (the excerpt holds A100 rows
  // for four regions only), and counted.
  EXPECT_FALSE(gcp.table.regions.at("asia-northeast3").count("a2-highgpu-8g"));
  EXPECT_TRUE(has_warning(gcp.report, "skipped 90 rows of GPU machine types whose GPUs the file does not price in their zone, "
                                      "e.g. line 8: no 8 x A100 row for a2-highgpu-8g in asia-northeast3-a"));
  EXPECT_NEAR(*gcp.table.regions.at("us-east4").at("a3-highgpu-8g").on_demand, 9.46006 + 78.37241, 1e-9);
  // n4-highmem-48 in asia-northeast2 lists no Price: a spot-only row, not a refusal.
  const InstanceSpec& n4 = gcp.table.regions.at("asia-northeast2").at("n4-highmem-48");
  EXPECT_FALSE(n4.on_demand);
  EXPECT_EQ(*n4.spot.median, 1.5335);
  EXPECT_TRUE(has_warning(gcp.report, "accelerator rows that no machine type's name attaches (TPUs"));
  // TPU and accelerator rows never become instance types of their own.
  for (const auto& [region, types] : gcp.table.regions)
    for (const auto& [type, spec] : types) EXPECT_FALSE(type.empty()) << region;
  // --strict refuses the first row it cannot use, naming it.
  EXPECT_THROW(import_real("gcp-vms.csv", {}, true), InputError);
}

TEST_F(RealCatalogs, AwsUnpricedRowsSkippedAndCountedZoneMedianQuoted) {
  const Imported aws = import_real("aws-vms.csv");
  EXPECT_TRUE(has_warning(aws.report, "aws-vms.csv: skipped 3 rows with neither Price nor SpotPrice, e.g. line "));
  EXPECT_FALSE(aws.table.regions.count("ap-south-1")) << "trn1.32xlarge has no price there";
  const InstanceSpec& p5 = aws.table.regions.at("us-east-1").at("p5.48xlarge");
  EXPECT_EQ(*p5.on_demand, 98.32);
  EXPECT_EQ(*p5.spot.median, median({30.326, 27.6948, 20.9934, 29.3511, 25.8774, 25.3026}));
  EXPECT_EQ(*p5.spot.min, 20.9934);
  EXPECT_EQ(*p5.spot.max, 30.326);
  const Quote q = *quote(p5, Market::spot);
  EXPECT_EQ(q.basis, "spot_median");
  EXPECT_EQ(q.cheapest_zone, "use1-az3");
  EXPECT_EQ(*aws.table.regions.at("us-east-1").at("p4d.24xlarge").on_demand, 32.7726);
  EXPECT_EQ(aws.table.regions.at("us-east-1").at("trn1.32xlarge").accelerator_model, "Trainium");
}

TEST_F(RealCatalogs, AwsFractionalGpusAndLocalZonesApart) {
  const Imported v8 = import_real("aws-v8-vms.csv");
  const InstanceSpec& g6f = v8.table.regions.at("us-east-1").at("g6f.2xlarge");
  EXPECT_EQ(g6f.accelerators, 0.25);
  EXPECT_EQ(g6f.accelerator_model, "NVIDIA L4 6GB");
  EXPECT_EQ(*g6f.on_demand, 0.475);
  // m6id.32xlarge: the Atlanta Local Zone's 9.4918 is not us-east-1's dearest zone.
  const InstanceSpec& m6id = v8.table.regions.at("us-east-1").at("m6id.32xlarge");
  EXPECT_EQ(*m6id.spot.max, 2.6608);
  EXPECT_EQ(*m6id.spot.median, 2.4782);
  EXPECT_EQ(m6id.spot.zones.size(), 5u);
  const InstanceSpec& atl = v8.table.regions.at("us-east-1-atl-2").at("m6id.32xlarge");
  EXPECT_EQ(*atl.spot.min, 9.4918);
  EXPECT_EQ(atl.spot.zones.begin()->first, "use1-atl2-az1");
  EXPECT_TRUE(has_warning(v8.report, "kept 2 rows of Local and Wavelength Zones as regions of their own, e.g. line "));
  // The table written and read back keeps the fraction.
  pperf::testing::TempDir dir;
  const PriceTable back = load_price_table(dir.write("t.json", price_table_json(v8.table)), "us-east-1");
  EXPECT_EQ(back.find("g6f.2xlarge")->accelerators, 0.25);
  // --region us-east-1 leaves the Local Zone out; the zone group is a region of its own.
  EXPECT_EQ(import_real("aws-v8-vms.csv", {"us-east-1"}).table.regions.size(), 1u);
}

TEST_F(RealCatalogs, AzureVastLambdaImportWhole) {
  const Imported azure = import_real("azure-vms.csv");
  EXPECT_EQ(azure.table.regions.at("eastus").at("Standard_NC12s_v3").accelerator_model, "V100") << "GpuInfo as a plain name";
  EXPECT_EQ(azure.table.regions.at("eastus").at("Standard_ND96asr_v4").accelerators, 8);
  EXPECT_FALSE(azure.table.regions.at("eastus").count("Standard_NC16ads_A10_v4")) << "neither Price nor SpotPrice";
  EXPECT_FALSE(azure.table.regions.at("southcentralus").at("Standard_NC12_Promo").spot.min);
  const Imported vast = import_real("vast-vms.csv");
  for (const auto& [region, types] : vast.table.regions)
    for (const auto& [type, spec] : types) EXPECT_FALSE(spec.spot.min) << type << ": SpotPrice 0.00 is no spot offer";
  EXPECT_EQ(*vast.table.regions.at("Czechia, CZ, EU").at("1x-H100_SXM-32-65536").on_demand, 1.80);
  const Imported lambda = import_real("lambda-vms.csv");
  EXPECT_EQ(lambda.table.regions.at("us-east-1").at("gpu_8x_h100_sxm5").accelerators, 8);
  EXPECT_EQ(*lambda.table.regions.at("us-east-1").at("gpu_8x_h100_sxm5").on_demand, 23.92);
}

TEST_F(RealCatalogs, SpotAdvisorBucketsAreTheLabels) {
  ImportOptions o;
  o.format = ImportFormat::spot_advisor;
  o.published = "2025-06-28";
  o.imported = "2026-11-26";
  pperf::testing::TempDir dir;
  const InterruptionTable t =
      load_interruption_table(dir.write("rates.json", import_spot_advisor({real("aws-spot-advisor.json")}, o, "r", "s", "")));
  EXPECT_EQ(t.buckets.at("<5%").value_pct, 2.5);
  EXPECT_EQ(t.buckets.at("5-10%").value_pct, 7.5);
  EXPECT_EQ(t.buckets.at("10-15%").value_pct, 12.5);
  EXPECT_EQ(t.buckets.at("15-20%").value_pct, 17.5);
  EXPECT_EQ(t.buckets.at(">20%").value_pct, 25);
  EXPECT_EQ(t.find("us-east-1", "p5.48xlarge")->bucket, ">20%");
  EXPECT_EQ(t.find("us-east-1", "p4d.24xlarge")->bucket, "10-15%");
}

TEST_F(RealCatalogs, AwsCliOutputsAreRead) {
  // get-products: the CLI's own example is one EBS volume product of AmazonEC2, read as an offer
  // (not refused as "not JSON"): it holds no compute instance, and says so.
  try {
    import_real("aws-get-products.json");
    FAIL() << "an EBS product is not an instance";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/products: no on-demand Linux, shared-tenancy instance"), std::string::npos) << e.what();
  }
  // describe-spot-price-history: the CLI's example, onto a base that describes m1.xlarge.
  PriceTable table;
  InstanceSpec m1;
  m1.type = "m1.xlarge";
  m1.vcpus = 4;
  m1.memory_gib = 15;
  table.regions["us-west-1"]["m1.xlarge"] = m1;
  ImportOptions o;
  o.format = ImportFormat::aws_spot_history;
  o.imported = "2026-11-26";
  import_prices(table, {real("aws-spot-price-history.json")}, o);
  const SpotPrice& s = table.regions.at("us-west-1").at("m1.xlarge").spot;
  EXPECT_EQ(*s.median, 0.08);
  EXPECT_EQ(s.zones.size(), 2u);
  EXPECT_EQ(s.window_from, "2014-01-05T11:28:26Z");
}

TEST_F(RealCatalogs, RowsWithTheWrongNumberOfFieldsAreSkippedNotTheFile) {
  // Azure's public file has rows whose Generation "V1,V2" lost its quotes (11 fields against a
  // header of 10). The stored copy quotes them, so the real rows are made so here.
  ImportFile f = real("azure-vms.csv");
  size_t unquoted = 0;
  for (size_t at; (at = f.text.find("\"V1,V2\"")) != std::string::npos; ++unquoted) f.text.replace(at, 7, "V1,V2");
  ASSERT_EQ(unquoted, 11u);
  ImportOptions o;
  o.format = ImportFormat::skypilot;
  o.published = "unknown";
  o.imported = "2026-11-26";
  PriceTable table;
  const ImportReport report = import_prices(table, {f}, o);
  EXPECT_TRUE(has_warning(report, "azure-vms.csv: skipped 11 rows with the wrong number of fields, e.g. line 4: 11 fields, the header has 10"))
      << report.warnings.at(0);
  EXPECT_EQ(*table.regions.at("eastus").at("Standard_ND96asr_v4").on_demand, 27.197);
  o.strict = true;
  PriceTable strict;
  EXPECT_THROW(import_prices(strict, {f}, o), InputError);
}

TEST_F(RealCatalogs, LocalZonesAreTheSameRegionInBothImporters) {
  // SkyPilot names Atlanta's Local Zone by its ID (use1-atl2-az1), a spot history by its name
  // (us-east-1-atl-2a): both price the zone group us-east-1-atl-2. The history below is the
  // catalog's Atlanta row written as describe-spot-price-history prints one.
  Imported v8 = import_real("aws-v8-vms.csv");
  pperf::testing::TempDir dir;
  const std::string history = dir.write("h.json", R"({"SpotPriceHistory": [{"AvailabilityZone": "us-east-1-atl-2a",
    "InstanceType": "m6id.32xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "9.491800",
    "Timestamp": "2026-11-20T00:00:00+00:00"}]})");
  ImportOptions o;
  o.format = ImportFormat::aws_spot_history;
  o.imported = "2026-11-26";
  import_prices(v8.table, {{history, read_text_file(history)}}, o);
  const SpotPrice& s = v8.table.regions.at("us-east-1-atl-2").at("m6id.32xlarge").spot;
  EXPECT_EQ(*s.median, 9.4918);
  EXPECT_EQ(s.zones.count("us-east-1-atl-2a"), 1u);
  EXPECT_EQ(*v8.table.regions.at("us-east-1").at("m6id.32xlarge").spot.max, 2.6608) << "us-east-1 untouched";
}
