#include <gtest/gtest.h>

#include "bench/core/input_error.h"
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
  PriceTable t = load_price_table("aws-ec2-us-east-1");
  struct Row { const char* type; int vcpus; double mem; int acc; double od, lo, hi; };
  const Row rows[] = {
      {"p4d.24xlarge", 96, 1152, 8, 32.7726, 5.09, 9.61}, {"p3.2xlarge", 8, 61, 1, 3.06, 0.52, 0.77},
      {"g5.xlarge", 4, 16, 1, 1.006, 0.40, 0.42},        {"g5.2xlarge", 8, 32, 1, 1.212, 0.43, 0.61},
      {"g5.4xlarge", 16, 64, 1, 1.624, 0.63, 0.67},      {"g5.12xlarge", 48, 192, 4, 5.672, 1.99, 2.73},
      {"g5.48xlarge", 192, 768, 8, 16.288, 3.93, 4.63},  {"c5.9xlarge", 36, 72, 0, 1.53, 0.57, 0.61},
      {"c5.18xlarge", 72, 144, 0, 3.06, 0.79, 1.13},     {"trn1.2xlarge", 8, 32, 1, 1.34375, 0.34, 0.36},
      {"trn1.32xlarge", 128, 512, 16, 21.50, 2.88, 6.28}, {"p5.48xlarge", 192, 2048, 8, 98.32, 20.99, 30.33}};
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
    EXPECT_DOUBLE_EQ(q.usd_per_hour, (r.lo + r.hi) / 2) << r.type;
    EXPECT_EQ(q.basis, "spot_mid");
  }
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
