// The placement record: filled from the launcher's PPERF_* variables (unset or empty: null,
// the platform "local", the host id the fingerprint), written and read back, absent in files
// from before it.
#include <gtest/gtest.h>

#include <map>

#include "src/core/json_view.h"
#include "src/core/results_json.h"
#include "src/env/host_info.h"
#include "src/env/placement.h"

using namespace pperf;
using nlohmann::json;

namespace {
EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}
const json kHost = {{"hostname", "algo-1"}, {"cpu_model", "Intel Xeon"}, {"logical_cpus", 96}, {"memory_gib", 1152.0}};
}  // namespace

TEST(Placement, NothingSetIsLocalWithTheFingerprintAsHostId) {
  const Placement p = capture_placement(kHost, env_of({}));
  EXPECT_EQ(p.platform, "local");
  EXPECT_FALSE(p.job_name || p.job_id || p.instance_type || p.instance_id || p.group);
  EXPECT_EQ(p.host_fingerprint.size(), 16u);
  EXPECT_EQ(p.host_id, p.host_fingerprint);
  const json j = to_json(p);
  EXPECT_TRUE(j["instance_type"].is_null());
  EXPECT_EQ(j["platform"], "local");
}

TEST(Placement, EveryVariableLandsInItsField) {
  const Placement p = capture_placement(kHost, env_of({{"PPERF_PLATFORM", "sagemaker"},
                                                       {"PPERF_JOB_NAME", "bert-trn1"},
                                                       {"PPERF_JOB_ID", "arn:aws:sagemaker:us-east-1:1:training-job/bert-trn1"},
                                                       {"PPERF_INSTANCE_TYPE", "ml.trn1.32xlarge"},
                                                       {"PPERF_INSTANCE_ID", "i-0abc"},
                                                       {"PPERF_HOST_GROUP", "dnn"},
                                                       {"PPERF_HOST_ID", "algo-1"},
                                                       {"PPERF_UNRELATED", "x"}}));
  EXPECT_EQ(p.platform, "sagemaker");
  EXPECT_EQ(p.job_name, std::optional<std::string>("bert-trn1"));
  EXPECT_EQ(p.job_id, std::optional<std::string>("arn:aws:sagemaker:us-east-1:1:training-job/bert-trn1"));
  EXPECT_EQ(p.instance_type, std::optional<std::string>("ml.trn1.32xlarge"));
  EXPECT_EQ(p.instance_id, std::optional<std::string>("i-0abc"));
  EXPECT_EQ(p.group, std::optional<std::string>("dnn"));
  EXPECT_EQ(p.host_id, "algo-1");
  EXPECT_EQ(p.host_fingerprint, capture_placement(kHost, env_of({})).host_fingerprint) << "the variables do not move it";
}

TEST(Placement, EmptyVariablesAreNull) {
  const Placement p = capture_placement(kHost, env_of({{"PPERF_PLATFORM", ""}, {"PPERF_HOST_ID", ""}, {"PPERF_JOB_ID", ""}}));
  EXPECT_EQ(p.platform, "local");
  EXPECT_EQ(p.host_id, p.host_fingerprint);
  EXPECT_FALSE(p.job_id);
}

// Two machines of one kind (the history's fingerprint pools them) have different fingerprints;
// the same machine read twice has one.
TEST(Placement, FingerprintTellsMachinesOfOneKindApart) {
  json other = kHost;
  other["hostname"] = "algo-2";
  EXPECT_NE(machine_fingerprint(kHost, "m1"), machine_fingerprint(other, "m1"));
  EXPECT_NE(machine_fingerprint(kHost, "m1"), machine_fingerprint(kHost, "m2"));
  EXPECT_EQ(machine_fingerprint(kHost, "m1"), machine_fingerprint(kHost, "m1"));
  const json here = capture_host({"pperf"});
  EXPECT_EQ(machine_fingerprint(here), machine_fingerprint(here));
}

TEST(Placement, RoundTripsInTheResultsFileAndIsAbsentFromOlderFiles) {
  RunReport report;
  report.command = "run";
  json doc = to_json(report);
  EXPECT_FALSE(doc.contains("placement")) << "a file from before it is written back without it";
  report.placement = capture_placement(kHost, env_of({{"PPERF_INSTANCE_TYPE", "p4d.24xlarge"}, {"PPERF_HOST_ID", "h1"}}));
  const std::string text = results_file_text(report);
  const RunReport back = results_from_json(json::parse(text), "r.json");
  ASSERT_TRUE(back.placement);
  EXPECT_EQ(back.placement->instance_type, std::optional<std::string>("p4d.24xlarge"));
  EXPECT_EQ(back.placement->host_id, "h1");
  EXPECT_EQ(results_file_text(back), text);
  json bad = json::parse(text);
  bad["placement"]["host_id"] = 3;
  try {
    results_from_json(bad, "r.json");
    FAIL() << "a host_id that is not text reads";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/placement/host_id"), std::string::npos) << e.what();
  }
}
