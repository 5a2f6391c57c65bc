#include <gtest/gtest.h>

#include "src/core/input_error.h"
#include "src/stats/compare_stats.h"
#include "compare_fixtures.h"
#include "src/compare/compare.h"
#include "pricing/cost_model.h"
#include "reports/formats.h"
#include "reports/page_text.h"

using namespace pperf;
using namespace pperf::testing;

namespace {

CompareSide side(RunReport report, const std::string& file) {
  CompareSide s;
  s.report = std::move(report);
  s.file = file;
  return s;
}

CompareReport compare_reports(const RunReport& base, const RunReport& cand, CompareOptions o = {}) {
  return compare_runs(side(base, "base.json"), side(cand, "cand.json"), o);
}

const PairComparison& only_pair(const CompareReport& r) {
  EXPECT_EQ(r.pairs.size(), 1u);
  return r.pairs.at(0);
}

}  // namespace

TEST(Compare, SameDistributionIsUnchanged) {
  const auto b = lognormal_samples(80, 10, 0.05, 1), c = lognormal_samples(80, 10, 0.05, 2);
  const auto r = compare_reports(run_report({measured_result("a", b)}), run_report({measured_result("a", c)}));
  const auto& p = only_pair(r);
  EXPECT_EQ(p.verdict, Verdict::unchanged);
  EXPECT_EQ(p.compared_by, "samples");
  ASSERT_TRUE(p.change_pct_ci95);
  EXPECT_LE((*p.change_pct_ci95)[0], *p.change_pct);
  EXPECT_GE((*p.change_pct_ci95)[1], *p.change_pct);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Compare, TenPercentSlowdownRegressesWithItsFigures) {
  const auto b = lognormal_samples(200, 10, 0.05, 1);
  const auto c = scaled(lognormal_samples(200, 10, 0.05, 2), 1.10);
  const auto r = compare_reports(run_report({measured_result("a", b)}), run_report({measured_result("a", c)}));
  const auto& p = only_pair(r);
  EXPECT_EQ(p.verdict, Verdict::regressed);
  EXPECT_TRUE(p.significant);
  EXPECT_LT(*p.p_value, 1e-6);
  EXPECT_NEAR(*p.change_pct, 10, 3);
  EXPECT_LT((*p.change_pct_ci95)[0], *p.change_pct);
  EXPECT_GT((*p.change_pct_ci95)[0], 5);  // the whole CI is a slowdown
  // Same price: the whole cost change comes from time.
  EXPECT_FALSE(p.price_moved);
  EXPECT_NEAR(*p.cost_price_part_pct, 0, 1e-9);
  EXPECT_NEAR(*p.cost_time_part_pct, *p.cost_change_pct, 1e-9);
  EXPECT_EQ(r.exit_code(), 1);
  // The reverse is an improvement.
  const auto back = compare_reports(run_report({measured_result("a", c)}), run_report({measured_result("a", b)}));
  EXPECT_EQ(only_pair(back).verdict, Verdict::improved);
  EXPECT_EQ(back.exit_code(), 0);
}

TEST(Compare, SignificantButUnderThresholdIsUnchanged) {
  const auto b = lognormal_samples(2000, 10, 0.02, 1);
  const auto c = scaled(lognormal_samples(2000, 10, 0.02, 2), 1.02);
  const auto r = compare_reports(run_report({measured_result("a", b)}), run_report({measured_result("a", c)}));
  const auto& p = only_pair(r);
  EXPECT_TRUE(p.significant);
  EXPECT_NEAR(*p.change_pct, 2, 0.5);
  EXPECT_EQ(p.verdict, Verdict::unchanged);
  // With a 1 % threshold it regresses.
  CompareOptions tight;
  tight.max_slowdown_pct = 1;
  EXPECT_EQ(only_pair(compare_reports(run_report({measured_result("a", b)}), run_report({measured_result("a", c)}), tight)).verdict,
            Verdict::regressed);
}

TEST(Compare, OverThresholdButNotSignificantIsUnchanged) {
  // Very noisy steps (cv 50 %): a 10 % slowdown (+15.5 % measured) that 80 steps a side cannot
  // tell from noise (p = 0.106).
  const auto r = compare_reports(run_report({measured_result("a", lognormal_samples(80, 10, 0.5, 3))}),
                                 run_report({measured_result("a", scaled(lognormal_samples(80, 10, 0.5, 13), 1.1))}));
  const auto& p = only_pair(r);
  EXPECT_GT(*p.change_pct, 5);
  EXPECT_FALSE(p.significant);
  EXPECT_EQ(p.verdict, Verdict::unchanged);
}

TEST(Compare, TooFewStepsIsUndecidedNotAnAlarm) {
  // Three steps a side, 20 % slower: no interval of the mean below kMinCiSteps, so no test.
  const auto r = compare_reports(run_report({measured_result("a", {10, 30, 5})}),
                                 run_report({measured_result("a", {12, 36, 6})}));
  const auto& p = only_pair(r);
  EXPECT_EQ(p.verdict, Verdict::undecided);
  EXPECT_EQ(p.compared_by, "samples");
  EXPECT_NEAR(*p.change_pct, 20, 1e-9);
  EXPECT_FALSE(p.p_value);
  EXPECT_FALSE(p.change_pct_ci95);
  EXPECT_EQ(r.tested_pairs, 0u);
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_EQ(p.reasons.size(), 1u);
  EXPECT_EQ(p.reasons[0], "undecided: 3 and 3 measured steps; the mean's error needs at least 60 a side, with spread");
  EXPECT_NE(compare_console(r).find("undecided mnist_heavy/tiny/32 a: undecided: 3 and 3"), std::string::npos)
      << compare_console(r);
}

TEST(Compare, CostThresholdCanBeTighterThanTime) {
  const auto b = lognormal_samples(200, 10, 0.01, 1);
  const auto c = scaled(lognormal_samples(200, 10, 0.01, 2), 1.04);
  CompareOptions o;
  o.max_slowdown_pct = 10;
  o.max_cost_increase_pct = 2;
  const auto r = compare_reports(run_report({measured_result("a", b)}), run_report({measured_result("a", c)}), o);
  const auto& p = only_pair(r);
  EXPECT_EQ(p.verdict, Verdict::regressed);
  ASSERT_EQ(p.reasons.size(), 2u);  // the cost threshold, then the evidence
  EXPECT_NE(p.reasons[0].find("USD per step"), std::string::npos) << p.reasons[0];
  EXPECT_NE(p.reasons[1].find("q = "), std::string::npos) << p.reasons[1];
}

TEST(Compare, NewPriceTableIsNotAPerformanceRegression) {
  const auto b = lognormal_samples(80, 10, 0.05, 1), c = lognormal_samples(80, 10, 0.05, 2);
  RunReport cand = run_report({measured_result("a", c, 3.06 * 1.25)});
  cand.pricing_retrieved = "2027-01-01";
  const auto r = compare_reports(run_report({measured_result("a", b)}), cand);
  const auto& p = only_pair(r);
  EXPECT_EQ(p.verdict, Verdict::unchanged);
  EXPECT_TRUE(p.price_moved);
  // Split: time part from the means (cost's estimator), price part the rest; they add up to the total.
  const double tb = mean(b), tc = mean(c);
  EXPECT_NEAR(*p.cost_time_part_pct, (tc / tb - 1) * 100, 1e-9);
  EXPECT_NEAR(*p.cost_price_part_pct, 25 * tc / tb, 1e-6);
  EXPECT_NEAR(*p.cost_time_part_pct + *p.cost_price_part_pct, *p.cost_change_pct, 1e-9);
  EXPECT_NEAR(*p.cost_change_pct, (1.25 * tc / tb - 1) * 100, 1e-6);
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].field, "pricing.retrieved");
  bool said = false;
  for (const auto& reason : p.reasons) said |= reason.find("price moved") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Compare, WithoutSamplesByThresholdAlone) {
  const auto slow = compare_reports(run_report({given_result("a", 100)}), run_report({given_result("a", 106)}));
  EXPECT_EQ(only_pair(slow).verdict, Verdict::regressed);
  EXPECT_EQ(only_pair(slow).compared_by, "threshold");
  EXPECT_FALSE(only_pair(slow).q_value);
  EXPECT_NEAR(*only_pair(slow).change_pct, 6, 1e-9);
  EXPECT_EQ(slow.tested_pairs, 0u);
  const auto same = compare_reports(run_report({given_result("a", 100)}), run_report({given_result("a", 104)}));
  EXPECT_EQ(only_pair(same).verdict, Verdict::unchanged);
  // One side measured, the other given: still by threshold.
  const auto mixed = compare_reports(run_report({measured_result("a", {100, 101, 99})}), run_report({given_result("a", 90)}));
  EXPECT_EQ(only_pair(mixed).compared_by, "threshold");
  EXPECT_EQ(only_pair(mixed).verdict, Verdict::improved);
}

TEST(Compare, NewMissingFailedAndTheirExitCodes) {
  const auto s = lognormal_samples(80, 10, 0.05, 1);
  Result failed = measured_result("c", s);
  failed.status = ResultStatus::failed;
  failed.reason = "out of memory";
  failed.step.reset();
  failed.cost.reset();
  failed.measurement.reset();
  const auto r = compare_reports(run_report({measured_result("a", s), measured_result("b", s), measured_result("c", s)}),
                                 run_report({measured_result("a", s), failed, measured_result("d", s)}));
  ASSERT_EQ(r.pairs.size(), 4u);
  EXPECT_EQ(r.pairs[0].verdict, Verdict::unchanged);
  EXPECT_EQ(r.pairs[1].verdict, Verdict::missing);
  EXPECT_EQ(r.pairs[1].configuration, "b");
  EXPECT_EQ(r.pairs[2].verdict, Verdict::failed);
  EXPECT_NE(r.pairs[2].reasons[0].find("out of memory"), std::string::npos);
  EXPECT_EQ(r.pairs[3].verdict, Verdict::added);
  EXPECT_EQ(r.pairs[3].configuration, "d");
  EXPECT_EQ(r.exit_code(), 1);
  // Only a new pair: exit 0.
  EXPECT_EQ(compare_reports(run_report({measured_result("a", s)}),
                            run_report({measured_result("a", s), measured_result("d", s)})).exit_code(), 0);
}

TEST(Compare, MatchesByWorkloadPresetBatchAndConfiguration) {
  const auto s = lognormal_samples(20, 10, 0.05, 1);
  Result other_batch = measured_result("a", s);
  other_batch.batch_size = 64;
  const auto r = compare_reports(run_report({measured_result("a", s)}), run_report({other_batch}));
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0].verdict, Verdict::missing);
  EXPECT_EQ(r.pairs[1].verdict, Verdict::added);
}

TEST(Compare, ManyPairsControlFalseDiscoveries) {
  // 40 pairs drawn from identical distributions: none may be called a regression after
  // Benjamini–Hochberg; the same pairs with a 15 % slowdown injected: all of them are (each
  // interval then clears the 5 % threshold; at 10 % one of the 40 intervals reaches below it).
  std::vector<Result> base, same, slower;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "c" + std::to_string(i);
    const auto b = lognormal_samples(80, 10 + i, 0.04, 100 + i), c = lognormal_samples(80, 10 + i, 0.04, 200 + i);
    base.push_back(measured_result(name, b));
    same.push_back(measured_result(name, c));
    slower.push_back(measured_result(name, scaled(c, 1.15)));
  }
  const auto r0 = compare_reports(run_report(base), run_report(same));
  EXPECT_EQ(r0.count(Verdict::regressed), 0u);
  EXPECT_EQ(r0.tested_pairs, 40u);
  for (const auto& p : r0.pairs) EXPECT_GE(*p.q_value, *p.p_value * (1 - 1e-12));  // p m / m may round down
  const auto r1 = compare_reports(run_report(base), run_report(slower));
  EXPECT_EQ(r1.count(Verdict::regressed), 40u);
}

TEST(Compare, BadSamplesAndDuplicatesNameFileAndPointer) {
  auto bad = run_report({measured_result("a", {10, 11, 0, 12})});
  try {
    compare_reports(run_report({measured_result("a", {10, 11, 12})}), bad);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "cand.json: /results/0/step_time_ms/samples/2: step time must be a finite number > 0, got 0");
  }
  auto dup = run_report({measured_result("a", {10}), measured_result("b", {10}), measured_result("a", {10})});
  try {
    compare_reports(dup, run_report({measured_result("a", {10})}));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "base.json");
    EXPECT_EQ(e.pointer(), "/results/2");
  }
  CompareOptions o;
  o.alpha = 1.5;
  EXPECT_THROW(compare_reports(dup, dup, o), std::invalid_argument);
}

TEST(Compare, ProvenanceDifferencesAreListed) {
  const auto s = lognormal_samples(20, 10, 0.05, 1);
  RunReport b = run_report({measured_result("a", s)}), c = b;
  EXPECT_TRUE(provenance_differences(b, c).empty());
  c.host["cpu_model"] = "AMD EPYC";
  c.host["logical_cpus"] = 4;
  c.host["torch"]["libtorch_version"] = "2.1.0";
  c.host["blas"]["library"] = "reference (netlib)";
  c.config_sha256 = std::string(64, 'b');
  c.pricing_table = "aws-sagemaker-us-east-1";
  std::vector<std::string> fields;
  for (const auto& w : provenance_differences(b, c)) fields.push_back(w.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"host.cpu_model", "host.logical_cpus", "host.torch.libtorch_version",
                                              "host.blas.library", "config.sha256", "pricing.table"}));
  EXPECT_EQ(provenance_differences(b, c)[1].message(), "host.logical_cpus differs: '2' (baseline) vs '4' (candidate)");
}

TEST(Compare, PooledBaselineTestsTheCandidateAgainstEachRun) {
  // Five baseline runs whose levels drift by a few percent, as whole runs on a shared host do,
  // and a candidate run drifting the same way (+5.5 %): one run against one run calls it
  // significant; against the runs as clusters it is an ordinary night.
  std::vector<CompareSide> runs;
  const double levels[] = {1.00, 1.04, 0.97, 1.02, 0.99};
  for (int k = 0; k < 5; ++k) {
    std::vector<Result> results;
    for (int i = 0; i < 4; ++i)
      results.push_back(measured_result("c" + std::to_string(i),
                                        scaled(lognormal_samples(150, 10 + i, 0.03, 10 * k + i), levels[k] * (1 + 0.01 * i))));
    runs.push_back(side(run_report(results), "run" + std::to_string(k) + ".json"));
  }
  CompareSide pooled = pool_runs(runs);
  ASSERT_EQ(pooled.report.results.size(), 4u);
  EXPECT_EQ(pooled.report.results[0].measurement->step_ms.size(), 750u);
  ASSERT_EQ(pooled.run_means[0].size(), 5u);
  for (int k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(pooled.run_means[0][k], runs[k].report.results[0].step->mean_ms);
  EXPECT_DOUBLE_EQ(pooled.report.results[0].step->mean_ms, mean(pooled.report.results[0].measurement->step_ms));
  EXPECT_NEAR(pooled.report.results[0].cost->usd_per_step, 3.06 * pooled.report.results[0].step->mean_ms / 3.6e6, 1e-15);
  std::vector<Result> drifted, slower;
  for (int i = 0; i < 4; ++i) {
    const auto s = scaled(lognormal_samples(150, 10 + i, 0.03, 100 + i), 1.055 * (1 + 0.01 * i));
    drifted.push_back(measured_result("c" + std::to_string(i), s));
    slower.push_back(measured_result("c" + std::to_string(i), scaled(s, 1.10)));
  }
  const auto r = compare_runs(pooled, side(run_report(drifted), "cand.json"), {});
  EXPECT_EQ(r.count(Verdict::regressed), 0u);
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const auto& p = r.pairs[i];
    EXPECT_EQ(p.compared_by, "runs");
    EXPECT_EQ(p.baseline_runs, 5u);
    EXPECT_EQ(*p.dof, 4);
    const auto expected = run_to_run_change(pooled.run_means[i], drifted[i].step->mean_ms);
    EXPECT_DOUBLE_EQ(*p.p_value, expected->p_value);
    EXPECT_DOUBLE_EQ(*p.change_pct, expected->estimate * 100);
    // One run against one run would have alarmed.
    const auto one = compare_reports(runs[4].report, run_report({drifted[i]}));
    EXPECT_LT(*one.pairs[0].p_value, 0.05) << i;
  }
  EXPECT_TRUE(r.notes.empty());  // the one-run note is for single files only
  // A real slowdown on top of the drift is still caught.
  EXPECT_EQ(compare_runs(pooled, side(run_report(slower), "cand.json"), {}).count(Verdict::regressed), 4u);
  // One disturbed night on one pair (+60 %) widens that pair's test only.
  std::vector<CompareSide> disturbed = runs;
  for (auto& s : disturbed[1].report.results[0].measurement->step_ms) s *= 1.6;
  disturbed[1].report.results[0].step->mean_ms *= 1.6;
  const auto d = compare_runs(pool_runs(disturbed), side(run_report(slower), "cand.json"), {});
  const auto undisturbed = compare_runs(pooled, side(run_report(slower), "cand.json"), {});
  EXPECT_GT(*d.pairs[0].p_value, *undisturbed.pairs[0].p_value);
  for (size_t i = 1; i < 4; ++i) EXPECT_DOUBLE_EQ(*d.pairs[i].p_value, *undisturbed.pairs[i].p_value) << i;
  // Two runs are not enough to know what a run varies by: undecided, exit 0.
  const auto two = compare_runs(pool_runs({runs[0], runs[1]}), side(run_report(slower), "cand.json"), {});
  EXPECT_EQ(two.count(Verdict::undecided), 4u);
  EXPECT_EQ(two.exit_code(), 0);
  EXPECT_EQ(two.pairs[0].reasons[0],
            "undecided: 2 baseline run(s) of this pair; a test against earlier runs needs at least 3 (their spread is "
            "what an ordinary run varies by)");
  // Two files: one run a side, and a note saying what that cannot see.
  const auto files = compare_reports(runs[0].report, run_report(drifted));
  EXPECT_EQ(files.pairs[0].compared_by, "samples");
  ASSERT_EQ(files.notes.size(), 1u);
  EXPECT_NE(files.notes[0].find("not how much a whole run varies"), std::string::npos);
}

TEST(CompareWriters, MarkdownListsRegressionsFirst) {
  const auto s = lognormal_samples(80, 10, 0.03, 1), t = lognormal_samples(80, 10, 0.03, 2);
  const auto r = compare_reports(run_report({measured_result("fast", s), measured_result("slow|pipe", s)}),
                                 run_report({measured_result("fast", t), measured_result("slow|pipe", scaled(t, 1.2))}));
  const std::string md = compare_markdown(r);
  const auto regressed = md.find("regressed |"), unchanged = md.find("unchanged |");
  ASSERT_NE(regressed, std::string::npos) << md;
  ASSERT_NE(unchanged, std::string::npos) << md;
  EXPECT_LT(regressed, unchanged);
  EXPECT_NE(md.find("slow\\|pipe"), std::string::npos);  // escaped, the table keeps its columns
  EXPECT_NE(md.find("1 regressed"), std::string::npos);
  // Every table row has the header's column count.
  size_t header_cells = 0;
  for (size_t pos = md.find("| verdict |"); md[pos] != '\n'; ++pos) header_cells += md[pos] == '|' && md[pos - 1] != '\\';
  for (size_t pos = md.find("| 🔴"); pos != std::string::npos; pos = md.find("| 🔴", pos + 1)) {
    size_t cells = 0;
    for (size_t i = pos; md[i] != '\n'; ++i) cells += md[i] == '|' && md[i - 1] != '\\';
    EXPECT_EQ(cells, header_cells);
  }
}

TEST(CompareWriters, JunitHasOneTestcasePerPairAndFailuresWithFigures) {
  const auto s = lognormal_samples(80, 10, 0.03, 1), t = lognormal_samples(80, 10, 0.03, 2);
  const auto r = compare_reports(run_report({measured_result("fast", s), measured_result("slow<&>", s)}),
                                 run_report({measured_result("fast", t), measured_result("slow<&>", scaled(t, 1.2))}));
  const std::string xml = compare_junit(r);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t pos = xml.find(what); pos != std::string::npos; pos = xml.find(what, pos + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<testcase "), 2u);
  EXPECT_EQ(count("<failure "), 1u);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"slow&lt;&amp;&gt;\""), std::string::npos);
  const auto failure = xml.find("<failure ");
  const std::string message = xml.substr(failure, xml.find('>', failure) - failure);
  EXPECT_NE(message.find("regressed: mean step time +"), std::string::npos) << message;
  EXPECT_NE(message.find("95 % CI"), std::string::npos) << message;
  EXPECT_NE(message.find("q = "), std::string::npos) << message;
}

TEST(CompareWriters, JsonCarriesTheFigures) {
  const auto s = lognormal_samples(80, 10, 0.03, 1), t = lognormal_samples(80, 10, 0.03, 2);
  const auto r = compare_reports(run_report({measured_result("a", s)}), run_report({measured_result("a", scaled(t, 1.2))}));
  const auto j = compare_to_json(r);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["summary"]["regressed"], 1);
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  const auto& p = j["pairs"][0];
  EXPECT_EQ(p["verdict"], "regressed");
  EXPECT_EQ(p["compared_by"], "samples");
  EXPECT_EQ(p["baseline"]["n"], 80);
  EXPECT_DOUBLE_EQ(p["baseline"]["mean_ms"].get<double>(), mean(s));
  EXPECT_DOUBLE_EQ(p["dof"].get<double>(), *r.pairs[0].dof);
  EXPECT_EQ(j["summary"]["undecided"], 0);
  EXPECT_EQ(j["summary"]["min_baseline_runs"], kMinBaselineRuns);
  EXPECT_DOUBLE_EQ(p["change_pct"].get<double>(), *r.pairs[0].change_pct);
  EXPECT_EQ(p["change_pct_ci95"].size(), 2u);
  EXPECT_TRUE(p["q_value"].is_number());
}

// Issue 67 item 4: a pooled baseline is priced through the cost model (reprice), not by hand.
// Pooling one run changes nothing, so its cost is the run's own, field for field: by hand the
// Spot range was dropped from the per-step interval (point price at both ends) and the per-sample
// interval kept whatever the newest run had.
TEST(Compare, APooledRunIsPricedAsTheCostModelPricesIt) {
  Result r = measured_result("spot", lognormal_samples(150, 100, 0.05, 7));
  r.instances[0].market = Market::spot;
  r.instances[0].usd_per_hour_range = std::array<double, 2>{0.9, 1.4};
  CostInput input;
  input.groups = r.instances;
  input.step = *r.step;
  input.samples_per_step = 32;
  r.cost = price(input);
  const CompareSide pooled = pool_runs({side(run_report({r}), "run.json")});
  const Cost& c = *pooled.report.results[0].cost;
  EXPECT_EQ(c.usd_per_step, r.cost->usd_per_step);
  EXPECT_EQ(c.usd_per_step_ci95, r.cost->usd_per_step_ci95) << "the Spot range's ends";
  EXPECT_EQ(c.usd_per_1m_samples, r.cost->usd_per_1m_samples);
  EXPECT_EQ(c.usd_per_1m_samples_ci95, r.cost->usd_per_1m_samples_ci95);
  EXPECT_EQ(c.samples_per_usd, r.cost->samples_per_usd);
  // Two runs: the pooled mean's cost, at the same price and range.
  const CompareSide two = pool_runs({side(run_report({r}), "a.json"), side(run_report({r}), "b.json")});
  const Result& p = two.report.results[0];
  input.step = *p.step;
  EXPECT_EQ(p.cost->usd_per_step_ci95, price(input).usd_per_step_ci95);
}
