// `pperf decide`'s library (src/decide/decide.h): results measured apart matched, refused where
// they are not comparable (naming both sources and the field) unless accepted, pooled per host,
// re-priced from one table and decided unpaired.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "test_helpers.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/decide/decide.h"
#include "reports/columns.h"
#include "reports/decide_text.h"
#include "reports/markup.h"
#include "reports/writer.h"
#include "src/stats/intervals.h"
#include "golden.h"

using namespace pperf;
using nlohmann::json;

namespace {
std::vector<double> steps(double mean_ms, double cv, unsigned seed, size_t n = 120) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, cv);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(mean_ms * std::exp(z(rng)));
  return out;
}

Result measured(const std::string& configuration, const std::string& type, bool baseline, std::vector<double> samples) {
  Result r;
  r.workload = "bert_classification";
  r.preset = "tiny";
  r.batch_size = 16;
  r.samples_per_step = 16;
  r.params = {{"seq_len", 32}};
  r.seed = 0;
  r.configuration = configuration;
  r.baseline = baseline;
  r.measured = true;
  r.instances = {PricedGroup{type, 1, "dnn", Market::on_demand, 1, "on_demand", std::nullopt, "", ""}};
  r.measurement = Measurement{};
  r.measurement->step_ms = samples;
  r.measurement->data_wait_ms.assign(samples.size(), 0);
  r.measurement->elapsed_s = 10;
  r.step = step_time_estimate(samples);
  r.execution = ExecutionReport{};
  r.execution->emulated = false;
  r.model = ModelInfo{4386178, 1e9, "fp32", {}};
  return r;
}

DecideSource source(const std::string& name, const std::string& host_id, const std::string& started, Result r) {
  DecideSource s{name, {}};
  s.run.command = "run";
  s.run.tool_version = "0.1.0";
  s.run.config_name = "trn1-vs-p4d-bert";
  s.run.config_sha256 = std::string(64, 'a');
  s.run.started_at = started;
  s.run.finished_at = started;
  s.run.pricing_table = "aws-sagemaker-us-east-1";
  s.run.placement = Placement{"local", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, host_id, "0123456789abcdef"};
  s.run.results.push_back(std::move(r));
  return s;
}

PriceTable table() { return load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-sagemaker-us-east-1.json"); }

DecideRequest request(std::vector<DecideSource> sources) {
  DecideRequest q;
  q.sources = std::move(sources);
  q.table = table();
  q.table_choice = "--pricing";
  return q;
}

/// decide_separate with its reasons written (reports/decide_text.h), as the command does.
DecideOutcome decided(const DecideRequest& q) {
  DecideOutcome out = decide_separate(q);
  decide_reasons(out.report);
  return out;
}

std::string refusal(const DecideRequest& q) {
  try {
    decide_separate(q);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const Result* find(const RunReport& r, const std::string& configuration) {
  for (const auto& x : r.results)
    if (x.configuration == configuration) return &x;
  return nullptr;
}
}  // namespace

// Seed 004's question from two hosts: trn1 at the same step as p4d is cheaper (24.725 vs 37.688
// USD/h); one host a side, no history: nothing measured the between-host spread, so the decision
// takes the stated prior (kPriorBetweenHostCv), and still says cheaper (+34 %, well beyond it).
TEST(Decide, TwoHostsOneConfigurationEachDecidedUnpaired) {
  auto q = request({source("p4d.json", "host-a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
                    source("trn1.json", "host-b", "2026-01-01T02:30:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)))});
  const DecideOutcome out = decided(q);
  ASSERT_EQ(out.report.results.size(), 2u);
  EXPECT_EQ(out.report.command, "decide");
  EXPECT_EQ(out.report.results[0].configuration, "p4d") << "the baseline first";
  const Result& trn1 = *find(out.report, "trn1");
  ASSERT_TRUE(trn1.decision);
  EXPECT_EQ(trn1.decision->verdict, CostVerdict::cheaper);
  EXPECT_EQ(trn1.measurement->turns.schedule, Schedule::separate);
  EXPECT_NE(trn1.decision->reason.find("measured separately (schedule: separate, no turns), 1 host vs 1 host of p4d, 2.5 h apart"),
            std::string::npos) << trn1.decision->reason;
  // Issue 68 item 2: the verdict comes from the interval with the stated 5 % prior on each side.
  EXPECT_NE(trn1.decision->reason.find("one host cannot separate the type from the machine: the interval adds the stated 5 % "
                                       "between-host prior"),
            std::string::npos) << trn1.decision->reason;
  ASSERT_TRUE(trn1.hosts);
  EXPECT_EQ(trn1.hosts->between_host, "prior");
  EXPECT_EQ(trn1.hosts->prior_cv, std::optional<double>(0.05));
  EXPECT_EQ(trn1.hosts->apart_s, std::optional<double>(9000));
  ASSERT_TRUE(trn1.hosts->improvement_pct_ci95_with_prior);
  EXPECT_EQ(*trn1.hosts->improvement_pct_ci95_with_prior, *trn1.decision->improvement_pct_bounds);
  // The printed interval is the prior's, wider than the hosts' own by about sqrt(2) x 5 % x 1.96.
  const auto& bounds = *trn1.decision->improvement_pct_bounds;
  EXPECT_GT(bounds[1] - bounds[0], 2 * 1.96 * std::sqrt(2.0) * 5 * 0.6);
  EXPECT_DOUBLE_EQ(trn1.instances[0].usd_per_hour_each, 24.725) << "re-priced from the table";
  EXPECT_EQ(out.report.decide->schedule, "separate");
  EXPECT_EQ(out.report.decide->apart_s, std::optional<double>(9000.0));
  // It round-trips as a results file.
  const std::string text = results_file_text(out.report);
  EXPECT_EQ(results_file_text(results_from_json(json::parse(text), "d.json")), text);
}

// Three p4d hosts and three trn1 hosts: the between-host variance comes from the replicates;
// hosts 6 % apart widen the interval past what any one host's own says.
TEST(Decide, ReplicatesCarryTheBetweenHostVariance) {
  std::vector<DecideSource> sources;
  const double p4d_hosts[] = {96, 100, 106}, trn1_hosts[] = {94, 101, 107};
  for (int i = 0; i < 3; ++i) {
    sources.push_back(source("p4d-" + std::to_string(i) + ".json", "p" + std::to_string(i), "2026-01-01T00:00:00Z",
                             measured("p4d", "ml.p4d.24xlarge", true, steps(p4d_hosts[i], 0.03, 10 + i))));
    sources.push_back(source("trn1-" + std::to_string(i) + ".json", "t" + std::to_string(i), "2026-01-02T00:00:00Z",
                             measured("trn1", "ml.trn1.32xlarge", false, steps(trn1_hosts[i] * 1.5, 0.03, 20 + i))));
  }
  const DecideOutcome out = decided(request(sources));
  const Result& trn1 = *find(out.report, "trn1");
  EXPECT_EQ(trn1.hosts->replicates, 3);
  EXPECT_EQ(trn1.hosts->between_host, "replicates");
  ASSERT_TRUE(trn1.hosts->between_host_cv);
  EXPECT_GT(*trn1.hosts->between_host_cv, 0.03);
  EXPECT_EQ(trn1.measurement->step_ms.size(), 360u) << "the replicates' steps together";
  // 1.5x the step at 0.656x the price: about 1.6 % cheaper, within a spread of ~5 % between hosts:
  // undecided, and it says how many more hosts would likely decide it.
  ASSERT_TRUE(trn1.decision);
  EXPECT_EQ(trn1.decision->verdict, CostVerdict::undecided);
  EXPECT_NE(trn1.decision->reason.find("3 hosts vs 3 hosts of p4d, 24.0 h apart"), std::string::npos) << trn1.decision->reason;
}

TEST(Decide, RefusesWhatIsNotComparableNamingBothFilesAndTheField) {
  Result trn1 = measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2));
  trn1.params = {{"seq_len", 64}};
  auto q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
                    source("trn1.json", "b", "2026-01-01T01:00:00Z", trn1)});
  EXPECT_EQ(refusal(q), "trn1.json: /results/0/params: params differs from p4d.json /results/0/params "
                        "({\"seq_len\":64} vs {\"seq_len\":32}): the two are not comparable; pass --accept params to decide anyway");
  q.accepted.insert("params");
  const DecideOutcome out = decided(q);
  ASSERT_EQ(out.report.decide->accepted.size(), 1u);
  EXPECT_EQ(out.report.decide->accepted[0].field, "params");
  EXPECT_EQ(decide_notes(out.report).front(), "accepted (--accept params): trn1.json /results/0/params differs from p4d.json "
                                              "({\"seq_len\":64} vs {\"seq_len\":32})");

  Result emulated = measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2));
  emulated.execution->emulated = true;
  q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
               source("trn1.json", "b", "2026-01-01T01:00:00Z", emulated)});
  EXPECT_NE(refusal(q).find("trn1.json: /results/0/execution/emulated: emulation differs from p4d.json"), std::string::npos)
      << refusal(q);
  auto other_version = source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)));
  other_version.run.tool_version = "2.0.0";
  q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
               other_version});
  EXPECT_NE(refusal(q).find("trn1.json: /tool/version: version differs from p4d.json /tool/version (pperf 2.x vs pperf 0.x)"),
            std::string::npos) << refusal(q);
}

TEST(Decide, RefusesBadInputsOneLineEach) {
  const auto p4d = source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1)));
  const auto trn1 = source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)));
  auto same = p4d;
  same.name = "copy.json";
  EXPECT_NE(refusal(request({p4d, same})).find("copy.json: /started_at: the same run as p4d.json"), std::string::npos);
  auto failed = trn1;
  failed.run.results[0].status = ResultStatus::failed;
  failed.run.results[0].reason = "out of memory";
  EXPECT_EQ(refusal(request({p4d, failed})),
            "trn1.json: /results/0/status: configuration 'trn1' failed (out of memory): decide needs every result measured "
            "(leave the file out or measure it again)");
  auto q = request({p4d, trn1});
  q.baseline = "g5";
  EXPECT_EQ(refusal(q), "pperf decide: --baseline: configuration 'g5' is in none of the results (they hold: p4d, trn1)");
  auto unmarked = p4d;
  unmarked.run.results[0].baseline = false;
  EXPECT_EQ(refusal(request({unmarked, trn1})),
            "pperf decide: --baseline: no result is marked as the baseline: name the configuration to decide against");
  auto same_host = trn1;
  same_host.run.results[0].configuration = "p4d";
  same_host.run.results[0].instances = p4d.run.results[0].instances;
  same_host.run.placement->host_id = "a";
  EXPECT_NE(refusal(request({p4d, same_host})).find("was measured on host a by p4d.json too"), std::string::npos);
  auto cost = trn1;
  cost.run.command = "cost";
  EXPECT_NE(refusal(request({p4d, cost})).find("trn1.json: /command: 'cost' results"), std::string::npos);
  auto unpriced = trn1;
  unpriced.run.results[0].instances[0].type = "ml.x9.huge";
  EXPECT_NE(refusal(request({p4d, unpriced})).find("--pricing"), std::string::npos) << refusal(request({p4d, unpriced}));
}

// The history's hosts of an instance type give a configuration measured on one host its spread.
TEST(Decide, BetweenHostSpreadFromTheHistory) {
  std::vector<RunReport> history;
  const double hosts[] = {100, 104, 97, 102};
  for (int i = 0; i < 4; ++i)
    history.push_back(source("h", "hist-" + std::to_string(i), "2025-12-01T00:00:00Z",
                             measured("p4d", "ml.p4d.24xlarge", true, steps(hosts[i], 0.03, 40 + i)))
                          .run);
  const Result like = measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1));
  const auto spread = spread_from_runs(history, like);
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->hosts, 4);
  EXPECT_GT(spread->cv, 0.01);
  EXPECT_LT(spread->cv, 0.05);
  EXPECT_FALSE(spread_from_runs(history, measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2))))
      << "no trn1 host in the history";
  // Issue 68 item 5: kept by type and workload: another batch size on p4d has no spread here.
  Result other_batch = like;
  other_batch.batch_size = 32;
  EXPECT_FALSE(spread_from_runs(history, other_batch));
  EXPECT_NE(spread_key(other_batch), spread_key(like));
  // The runs decided, and their hosts, are not their own history: two of the four hosts decided
  // leave two, below kMinHistoryHosts (3).
  const std::vector<DecideSource> decided = {source("h0.json", "hist-0", "2025-12-01T00:00:00Z", like),
                                             source("h1.json", "hist-1", "2026-01-01T00:00:00Z", like)};
  EXPECT_EQ(spread_from_runs(history, like, {decided[0]})->hosts, 3);
  EXPECT_FALSE(spread_from_runs(history, like, decided)) << "two history hosts are not a spread";
  auto q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", like),
                    source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)))});
  q.history_spread[spread_key(like)] = *spread;
  const DecideOutcome out = ::decided(q);
  EXPECT_EQ(find(out.report, "p4d")->hosts->between_host, "history");
  EXPECT_EQ(find(out.report, "trn1")->hosts->between_host, "prior") << "nothing measured trn1's spread";
}

// Every writer lists each input's placement and time, not the first's (nor the deciding host's):
// the lines come from decide.inputs, which carry each run's own machine and its time after the first.
TEST(Decide, EachInputsPlacementAndTimeAreListed) {
  auto p4d = source("p4d.json", "host-a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1)));
  p4d.run.placement->platform = "aws";
  p4d.run.placement->instance_type = "p4d.24xlarge";
  p4d.run.placement->instance_id = "i-0abc";
  p4d.run.host = {{"hostname", "ip-10-0-0-1"}, {"cpu_model", "AMD EPYC 7R13"}, {"logical_cpus", 96}, {"os", "Linux"}};
  auto trn1 = source("trn1.json", "host-b", "2026-01-01T02:30:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)));
  trn1.run.placement->job_name = "bench";
  trn1.run.placement->job_id = "17";
  const DecideOutcome out = decided(request({p4d, trn1}));
  const auto& inputs = out.report.decide->inputs;
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].after_first_s, std::optional<double>(0.0));
  EXPECT_EQ(inputs[1].after_first_s, std::optional<double>(9000.0));
  EXPECT_EQ(inputs[0].machine.hostname, std::optional<std::string>("ip-10-0-0-1"));
  EXPECT_EQ(inputs[0].machine.logical_cpus, std::optional<int64_t>(96));
  EXPECT_TRUE(inputs[1].machine.empty());
  EXPECT_EQ(inputs[1].placement->job_id, std::optional<std::string>("17")) << "a typed placement";
  const auto lines = decide_input_lines(out.report);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "p4d.json (p4d): host host-a, platform aws, instance p4d.24xlarge i-0abc; on ip-10-0-0-1 (AMD EPYC 7R13, "
                      "96 logical CPUs); started 2026-01-01T00:00:00Z (the first run)");
  EXPECT_EQ(lines[1], "trn1.json (trn1): host host-b, platform local, instance type not given, no instance id, job bench 17; "
                      "started 2026-01-01T02:30:00Z, 2.5 h after the first run");
  EXPECT_TRUE(decide_input_lines(RunReport{}).empty()) << "nothing for a run";
}

// Two hosts whose means differ less than their own errors explain: DerSimonian-Laird's estimate
// truncates at 0, and the reason says so in words rather than "0.0 %".
TEST(Decide, BetweenHostSpreadTruncatedAtZeroIsSaidInWords) {
  const auto same = steps(100, 0.05, 1);
  const DecideOutcome out = decided(
      request({source("p4d-1.json", "p1", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, same)),
               source("p4d-2.json", "p2", "2026-01-01T00:10:00Z", measured("p4d", "ml.p4d.24xlarge", true, same)),
               source("trn1.json", "t1", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)))}));
  const Result& p4d = *find(out.report, "p4d");
  EXPECT_EQ(p4d.hosts->between_host, "replicates");
  EXPECT_EQ(p4d.hosts->between_host_cv, std::optional<double>(0));
  const std::string& reason = find(out.report, "trn1")->decision->reason;
  EXPECT_NE(reason.find("p4d's between-host spread estimated at 0 from its 2 hosts (they differ less than their own intervals "
                        "explain)"),
            std::string::npos) << reason;
  EXPECT_EQ(reason.find("0.0 %"), std::string::npos) << reason;
  const std::string note = "p4d: 2 hosts, between-host spread estimated at 0 from its 2 hosts (they differ less than their own "
                           "intervals explain)";
  const auto notes = decide_notes(out.report);
  EXPECT_NE(std::find(notes.begin(), notes.end(), note), notes.end());
}

// Issue 68 item 7: inputs that decide nothing are refused (exit 2 in the command), not decided
// as nothing: one configuration alone; results of different configs with no baseline in common,
// naming both files.
TEST(Decide, RefusesInputsThatDecideNothing) {
  const auto p4d = source("p4d-1.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1)));
  const auto p4d_2 = source("p4d-2.json", "b", "2026-01-01T01:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 3)));
  EXPECT_EQ(refusal(request({p4d, p4d_2})),
            "pperf decide: RESULTS: only configuration 'p4d' in the results (2 files): decide needs the baseline and another "
            "configuration of the same workload");
  auto g5 = source("g5.json", "c", "2026-01-01T01:00:00Z", measured("g5", "ml.g5.xlarge", false, steps(100, 0.05, 2)));
  g5.run.results[0].workload = "vit_synthetic";
  g5.run.config_name = "g5-vit";
  g5.run.config_sha256 = std::string(64, 'b');
  EXPECT_EQ(refusal(request({p4d, g5})),
            "g5.json: /config_sha256: results of config 'g5-vit' (bbbbbbbbbbbb), p4d-1.json of config 'trn1-vs-p4d-bert' "
            "(aaaaaaaaaaaa): no workload of theirs has the baseline 'p4d' and another configuration measured, so nothing is "
            "decided");
}

// Issue 68 item 7: the no-interval case says what to do; where the hosts' own step times carry
// the interval (log steps with sd 0.9), the plan says more steps a host, not only more hosts.
TEST(Decide, UndecidedSaysWhatWouldDecideIt) {
  const auto p4d = source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1)));
  const auto few = source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2, 40)));
  const DecideOutcome few_outcome = decided(request({p4d, few}));  // the result lives in it
  const Result& no_interval = *find(few_outcome.report, "trn1");
  EXPECT_EQ(no_interval.decision->verdict, CostVerdict::undecided);
  EXPECT_NE(no_interval.decision->reason.find("trn1.json (host b) has no interval of its mean: 40 steps, fewer than the 60 an "
                                              "interval needs; measure it again with measure.min_steps of 60 or more (and measure.max_seconds long "
                                              "enough for them)"),
            std::string::npos) << no_interval.decision->reason;
  // Issue 68 item 4: 1.4x p4d's step at 0.656x its price (+8 %) within the 5 % prior a side:
  // undecided, and the plan of more hosts says it is to be measured, then decided once.
  const auto slower = source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(140, 0.05, 2)));
  const DecideOutcome slower_outcome = decided(request({p4d, slower}));
  const Result& planned = *find(slower_outcome.report, "trn1");
  EXPECT_EQ(planned.decision->verdict, CostVerdict::undecided);
  ASSERT_TRUE(planned.hosts->more_hosts) << planned.decision->reason;
  EXPECT_NE(planned.decision->reason.find("would likely decide it (measure them all, then decide once: deciding again after "
                                          "each added host until it decides gave 10-17 % false verdicts instead of at most 5 %"),
            std::string::npos) << planned.decision->reason;
  // 1.5x p4d's step at 0.656x its price, each host's log steps with sd 0.9: undecided.
  const auto noisy_b = source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.9, 1)));
  const auto noisy_c = source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(150, 0.9, 2)));
  const DecideOutcome noisy_outcome = decided(request({noisy_b, noisy_c}));
  const Result& noisy = *find(noisy_outcome.report, "trn1");
  EXPECT_EQ(noisy.decision->verdict, CostVerdict::undecided);
  EXPECT_NE(noisy.decision->reason.find("of the interval's variance: more steps a host (measure.max_steps, measure.max_seconds) "
                                        "would narrow it more than more hosts"),
            std::string::npos) << noisy.decision->reason;
}

// The decision as written: each scenario's results file and its notes are checked in
// (tests/data/golden/decide-*), so a change of what decide writes is a reviewed diff.
namespace {
/// The notes as the command prints them, one "decide: " line each.
std::string notes_text(const DecideOutcome& out) {
  std::string text;
  for (const auto& note : decide_notes(out.report)) text += "decide: " + note + "\n";
  return text;
}
void expect_decide_golden(const std::string& name, const DecideOutcome& out) {
  pperf::testing::expect_golden("decide-" + name + ".json", results_file_text(out.report));
  pperf::testing::expect_golden("decide-" + name + ".notes.txt", notes_text(out));
}
}  // namespace

TEST(DecideGolden, WhatDecideWritesIsItsGoldenFile) {
  {  // one host a side (the prior), placements and machines, and a workload without its baseline
    auto p4d = source("p4d.json", "host-a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1)));
    p4d.run.placement->platform = "aws";
    p4d.run.placement->instance_type = "p4d.24xlarge";
    p4d.run.placement->instance_id = "i-0abc";
    p4d.run.host = {{"hostname", "ip-10-0-0-1"}, {"cpu_model", "AMD EPYC 7R13"}, {"logical_cpus", 96}, {"os", "Linux"}};
    auto trn1 = source("trn1.json", "host-b", "2026-01-01T02:30:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)));
    trn1.run.placement->job_name = "bench";
    trn1.run.placement->job_id = "17";
    trn1.run.finished_at = "";
    Result vit = measured("trn1", "ml.trn1.32xlarge", false, steps(80, 0.05, 3));
    vit.workload = "vit_synthetic";
    trn1.run.results.push_back(vit);
    expect_decide_golden("two-hosts", decided(request({p4d, trn1})));
  }
  {  // three hosts a side: the spread from the replicates; undecided, with more hosts to decide it
    std::vector<DecideSource> sources;
    const double p4d_hosts[] = {96, 100, 106}, trn1_hosts[] = {94, 101, 107};
    for (int i = 0; i < 3; ++i) {
      sources.push_back(source("p4d-" + std::to_string(i) + ".json", "p" + std::to_string(i), "2026-01-01T00:00:00Z",
                               measured("p4d", "ml.p4d.24xlarge", true, steps(p4d_hosts[i], 0.03, 10 + i))));
      sources.push_back(source("trn1-" + std::to_string(i) + ".json", "t" + std::to_string(i), "2026-01-02T00:00:00Z",
                               measured("trn1", "ml.trn1.32xlarge", false, steps(trn1_hosts[i] * 1.5, 0.03, 20 + i))));
    }
    expect_decide_golden("replicates", decided(request(sources)));
  }
  {  // the spread from the history; two hosts the same: the spread estimated at 0
    const Result like = measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1));
    std::vector<RunReport> history;
    const double hosts[] = {100, 104, 97, 102};
    for (int i = 0; i < 4; ++i)
      history.push_back(source("h", "hist-" + std::to_string(i), "2025-12-01T00:00:00Z",
                               measured("p4d", "ml.p4d.24xlarge", true, steps(hosts[i], 0.03, 40 + i)))
                            .run);
    auto q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", like),
                      source("trn1-1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2))),
                      source("trn1-2.json", "c", "2026-01-01T01:10:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2)))});
    q.history_spread[spread_key(like)] = *spread_from_runs(history, like);
    expect_decide_golden("history", decided(q));
  }
  {  // a field accepted; a host without an interval of its mean
    Result trn1 = measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2, 40));
    trn1.params = {{"seq_len", 64}};
    auto q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
                      source("trn1.json", "b", "2026-01-01T01:00:00Z", trn1)});
    q.accepted.insert("params");
    expect_decide_golden("accepted", decided(q));
  }
  {  // undecided where the hosts' own steps carry the interval: more steps a host, not only more hosts
    expect_decide_golden(
        "noisy", decided(request(
                     {source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.9, 1))),
                      source("trn1.json", "b", "2026-01-01T01:00:00Z", measured("trn1", "ml.trn1.32xlarge", false, steps(150, 0.9, 2)))})));
  }
}

// Issue 67 item 4: the notes are written from the record in reports/, so every format shows
// them (before, only the command printed them); the JSON holds every field they are made of, so
// a decision read back has the same notes.
TEST(DecideNotes, EveryFormatShowsThem) {
  Result trn1 = measured("trn1", "ml.trn1.32xlarge", false, steps(100, 0.05, 2, 40));  // no interval of its mean
  trn1.params = {{"seq_len", 64}};
  auto q = request({source("p4d.json", "a", "2026-01-01T00:00:00Z", measured("p4d", "ml.p4d.24xlarge", true, steps(100, 0.05, 1))),
                    source("trn1.json", "b", "2026-01-01T01:00:00Z", trn1)});
  q.accepted.insert("params");
  const DecideOutcome out = decided(q);
  const auto notes = decide_notes(out.report);
  ASSERT_EQ(notes.size(), 5u);  // accepted, two inputs re-priced, two configurations' hosts
  EXPECT_EQ(notes[0], "accepted (--accept params): trn1.json /results/0/params differs from p4d.json "
                      "({\"seq_len\":64} vs {\"seq_len\":32})");
  EXPECT_NE(notes[4].find("trn1: 1 host; no interval: trn1.json (host b) has no interval of its mean: 40 steps"),
            std::string::npos) << notes[4];
  RunReportPage page;
  page.run = &out.report;
  page.source = "decided.json";
  for (const RunWriter& writer : run_writers()) {
    if (writer.name == "csv" || writer.name == "gbench" || writer.name == "json") continue;  // tables of figures
    SCOPED_TRACE(writer.name);
    const std::string text = writer.write(page);
    for (const auto& note : notes) {
      std::string shown = note;  // as the format escapes it
      if (writer.name == "html") shown = markup_escape(note);
      if (writer.name == "markdown") shown = markdown_escape(note);
      EXPECT_NE(text.find(shown), std::string::npos) << note;
    }
  }
  // JSON: written, read back, the same notes and reasons.
  const RunReport back = results_from_json(json::parse(results_file_text(out.report)), "decided.json");
  EXPECT_EQ(decide_notes(back), notes);
  EXPECT_EQ(back.results[1].decision->reason, out.report.results[1].decision->reason);
  EXPECT_EQ(results_file_text(back), results_file_text(out.report)) << "it round-trips";
}
