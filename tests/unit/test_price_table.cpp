#include <gtest/gtest.h>

#include "src/core/input_error.h"
#include "pricing/price_table.h"
#include "test_helpers.h"

using namespace pperf;

TEST(PriceTables, SageMakerHasEverySeedPrice) {
  PriceTable t = load_price_table("aws-sagemaker-us-east-1");
  EXPECT_EQ(t.region, "us-east-1");
  EXPECT_EQ(t.currency, "USD");
  EXPECT_FALSE(t.source.empty());
  const std::map<std::string, double> expected = {
      {"ml.p4d.24xlarge", 37.688}, {"ml.c5.18xlarge", 3.672}, {"ml.p3.2xlarge", 3.825},
      {"ml.c5.9xlarge", 1.836},    {"ml.trn1.32xlarge", 24.725}, {"ml.g5.xlarge", 1.408},
      {"ml.g5.2xlarge", 1.515},    {"ml.g5.4xlarge", 2.03},   {"ml.g5.12xlarge", 7.09},
      {"ml.g5.48xlarge", 20.36}};
  for (const auto& [type, usd] : expected) {
    ASSERT_NE(t.find(type), nullptr) << type;
    EXPECT_DOUBLE_EQ(*t.find(type)->on_demand, usd) << type;
  }
  // The derived c5.18xlarge price is the seed's heterogeneous total minus the p4d, halved.
  EXPECT_NEAR(*t.find("ml.c5.18xlarge")->on_demand, (45.032 - 37.688) / 2, 1e-12);
  EXPECT_FALSE(quote(*t.find("ml.p4d.24xlarge"), Market::spot)) << "SageMaker spot is per job, not listed";
}

TEST(PriceTables, Ec2HasEveryInstanceWithSpecsAndSpotRanges) {
  // The shipped table is SkyPilot's v8 AWS catalog (its `source` field names the commit):
  // on-demand, the us-east-1 zones' spot min..max, and their median as the quote.
  PriceTable t = load_price_table("aws-ec2-us-east-1");
  struct Row { const char* type; int vcpus; double mem; double acc; double od, lo, median, hi; };
  const Row rows[] = {
      {"p4d.24xlarge", 96, 1152, 8, 21.957642, 2.4655, (7.8799 + 8.1203) / 2, 8.1915},
      {"p3.2xlarge", 8, 61, 1, 3.06, 0.3707, (0.3841 + 0.4041) / 2, 0.4281},
      {"g5.xlarge", 4, 16, 1, 1.006, 0.4246, 0.436, 0.4507},
      {"g5.2xlarge", 8, 32, 1, 1.212, 0.4738, 0.5036, 0.5933},
      {"g5.4xlarge", 16, 64, 1, 1.624, 0.642, 0.6603, 0.7068},
      {"g5.12xlarge", 48, 192, 4, 5.672, 2.0796, 2.1824, 2.7804},
      {"g5.48xlarge", 192, 768, 8, 16.288, 4.5408, 5.8671, 7.0077},
      {"c5.9xlarge", 36, 72, 0, 1.53, 0.6328, 0.6571, 0.7192},
      {"c5.18xlarge", 72, 144, 0, 3.06, 0.9334, 1.0159, 1.0977},
      {"trn1.2xlarge", 8, 32, 1, 1.34375, 0.2198, (0.2198 + 0.2482) / 2, 0.2482},
      {"trn1.32xlarge", 128, 512, 16, 21.50, 2.4334, 4.1506, 6.1428},
      {"p5.48xlarge", 192, 2048, 8, 55.04, 17.6289, (21.1543 + 25.7522) / 2, 55.04}};
  EXPECT_EQ(t.instances.size(), std::size(rows));
  for (const auto& r : rows) {
    const InstanceSpec* s = t.find(r.type);
    ASSERT_NE(s, nullptr) << r.type;
    EXPECT_EQ(s->vcpus, r.vcpus) << r.type;
    EXPECT_DOUBLE_EQ(s->memory_gib, r.mem) << r.type;
    EXPECT_EQ(s->accelerators, r.acc) << r.type;
    EXPECT_DOUBLE_EQ(*s->on_demand, r.od) << r.type;
    EXPECT_DOUBLE_EQ(*s->spot.min, r.lo) << r.type;
    EXPECT_DOUBLE_EQ(*s->spot.max, r.hi) << r.type;
    Quote q = *quote(*s, Market::spot);
    EXPECT_DOUBLE_EQ(q.usd_per_hour, r.median) << r.type;
    EXPECT_EQ(q.basis, "spot_median");
  }
  EXPECT_FALSE(t.find("p3.2xlarge")->spot.zones.count("use1-atl2-az1")) << "a Local Zone is not a us-east-1 zone";
}

namespace {
std::string table_error(const std::string& json) {
  pperf::testing::TempDir dir;
  std::string path = dir.write("t.json", json);
  try {
    load_price_table(path);
  } catch (const InputError& e) {
    std::string what = e.what();
    return what.substr(what.find(": ") + 2);  // drop the temp path
  }
  return "no error";
}
const std::string kHead =
    R"({"schema_version":1,"name":"t","source":"s","retrieved":"2026-01-01","region":"r","currency":"USD",)";
}  // namespace

TEST(PriceTables, BadTablesNameThePointer) {
  EXPECT_EQ(table_error("{"), "parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal");
  EXPECT_EQ(table_error(kHead + R"("instances":{"a":{"vcpus":1,"memory_gib":1,"on_demand":-1}}})"),
            "/instances/a/on_demand: must be > 0, got -1");
  EXPECT_EQ(table_error(kHead + R"("instances":{"a":{"vcpus":1,"memory_gib":1}}})"),
            "/instances/a: has neither an on_demand nor a spot price");
  EXPECT_EQ(table_error(kHead + R"("instances":{"a":{"vcpus":1,"memory_gib":1,"on_demand":1,"spot":{"min":3,"max":2}}}})"),
            "/instances/a/spot/min: spot min is above spot max");
  EXPECT_EQ(table_error(kHead + R"("instances":{"a":{"vcpus":1,"memory_gib":1,"ondemand":1}}})"),
            "/instances/a/ondemand: unknown key 'ondemand' (did you mean 'on_demand'?)");
  EXPECT_EQ(table_error(R"({"schema_version":1,"name":"t","source":"s","retrieved":"Jan 2026","region":"r","currency":"USD","instances":{}})"),
            "/retrieved: expected a date YYYY-MM-DD, got 'Jan 2026'");
}
