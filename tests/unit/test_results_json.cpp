// The results file: written, read and written again is byte-identical; every results file in
// tests/data/results round-trips; a bad file is one InputError with file and JSON pointer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "src/core/results_json.h"
#include "member_count.h"
#include "test_helpers.h"

using namespace pperf;
using nlohmann::json;

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> golden_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(pperf::testing::source_dir() + "/tests/data/results"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The error line for a golden file after `mutate`, without the path; "" if it reads.
std::string error_of(const std::function<void(json&)>& mutate) {
  json doc = json::parse(read_text(golden_files().front()));
  mutate(doc);
  try {
    results_from_json(doc, "r.json");
  } catch (const InputError& e) {
    return std::string(e.what()).substr(std::string("r.json: ").size());
  }
  return "";
}
}  // namespace

TEST(ResultsJson, GoldenFilesExistForRunAndCost) {
  std::set<std::string> commands;
  for (const auto& path : golden_files()) commands.insert(read_results_file(path).command);
  EXPECT_EQ(commands, (std::set<std::string>{"cost", "run"}));
}

TEST(ResultsJson, EveryGoldenFileRoundTripsByteIdentical) {
  for (const auto& path : golden_files()) {
    const std::string text = read_text(path);
    const RunReport report = read_results_file(path);
    EXPECT_EQ(results_file_text(report), text) << path;
    EXPECT_EQ(results_file_text(results_from_json(json::parse(results_file_text(report)), path)), text) << path;
  }
}

TEST(ResultsJson, ReadsWhatWasWritten) {
  const RunReport report = read_results_file(golden_files().back());
  ASSERT_FALSE(report.results.empty());
  for (const auto& r : report.results) {
    if (r.status != ResultStatus::ok) continue;
    ASSERT_TRUE(r.step);
    ASSERT_TRUE(r.cost);
    if (r.measured && r.measurement->step_ms.size() >= 6) {
      ASSERT_TRUE(r.step->ci95_ms && r.step->mean_ci95_ms);
      EXPECT_GE(r.step->median_ms, (*r.step->ci95_ms)[0]);
      EXPECT_LE(r.step->median_ms, (*r.step->ci95_ms)[1]);
      EXPECT_GE(r.step->mean_ms, (*r.step->mean_ci95_ms)[0]);
      EXPECT_LE(r.step->mean_ms, (*r.step->mean_ci95_ms)[1]);
    }
    if (!r.measured) EXPECT_FALSE(r.step->ci95_ms) << "a given step time has no interval";
    EXPECT_GT(r.samples_per_step, 0);
    if (r.measured) EXPECT_EQ(r.measurement->step_ms.size(), r.measurement->data_wait_ms.size());
  }
}

TEST(ResultsJson, UnknownFieldsAreKeptAndWrittenBack) {
  json doc = json::parse(read_text(golden_files().front()));
  doc["dashboard_note"] = {{"owner", "ml-platform"}};
  doc["results"][0]["future_field"] = 42;
  const RunReport report = results_from_json(doc, "r.json");
  const json again = to_json(report);
  EXPECT_EQ(again["dashboard_note"]["owner"], "ml-platform");
  EXPECT_EQ(again["results"][0]["future_field"], 42);
  EXPECT_EQ(again.dump(), doc.dump());
}

TEST(ResultsJson, BadFilesNameTheJsonPointer) {
  EXPECT_EQ(error_of([](json& j) { j["schema_version"] = 2; }),
            "/schema_version: schema_version 2 is not supported (this pperf reads 1)");
  EXPECT_EQ(error_of([](json& j) { j.erase("results"); }), "/results: missing required field");
  EXPECT_EQ(error_of([](json& j) { j["results"][0]["status"] = "great"; }),
            "/results/0/status: 'great' is not one of ok, failed, not_run");
  EXPECT_EQ(error_of([](json& j) { j["results"][0]["batch_size"] = "big"; }),
            "/results/0/batch_size: expected an integer, got \"big\"");
  EXPECT_EQ(error_of([](json& j) { j["results"][0]["step_time_ms"]["median"] = nullptr; }),
            "/results/0/step_time_ms/median: expected a number, got null");
  EXPECT_EQ(error_of([](json& j) { j["results"] = json::object(); }), "/results: expected an array, got object");
  EXPECT_EQ(error_of([](json& j) { j = json::array(); }), "/: expected a pperf results object");
}

TEST(ResultsJson, NonJsonAndEmptyAndOverflowingFiles) {
  pperf::testing::TempDir dir;
  auto error = [&](const std::string& text) {
    const std::string path = dir.write("r.json", text);
    try {
      read_results_file(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size() + 2);
    }
    return std::string();
  };
  EXPECT_EQ(error(""), "empty file (expected JSON)");
  EXPECT_EQ(error("{\"schema_version\": 1,\n \"results\": [}"),
            "parse error at line 2, column 14: syntax error while parsing value - unexpected '}'; "
            "expected '[', '{', or a literal");
  EXPECT_EQ(error("{\"results\": [{\"x\": 1}, {\"median\": 1e400}]}"),
            "/results/1/median: number overflow parsing '1e400'");
}

TEST(ResultsJson, DistributedRoundTripsAndScalingEfficiencyIsFilled) {
  RunReport report = read_results_file(golden_files().back());
  ASSERT_FALSE(report.results.empty());
  Result one = report.results.front();
  one.status = ResultStatus::ok;
  one.step = StepTimeEstimate{10, std::array<double, 2>{9, 11}, 10};
  one.samples_per_s = 100;
  Result two = one;
  one.distributed = DistributedReport{};
  one.distributed->backend = "gloo";
  one.distributed->launcher = Launcher::spawn_local;
  one.distributed->ranks = {{0, "h", {0}, 10, 0.1}};
  two.distributed = DistributedReport{};
  two.distributed->world_size = 2;
  two.distributed->backend = "gloo";
  two.distributed->engine = "gloo";
  two.distributed->launcher = Launcher::env;
  two.distributed->ranks = {{0, "a", {0}, 11, 0.1}, {1, "b", {1}, 12.5, 0.25}};
  two.distributed->allreduce_median_ms = 1.5;
  two.distributed->allreduce_p95_ms = 2.5;
  two.distributed->comm_fraction = 0.125;
  two.distributed->bytes_per_step = 4800000;
  two.samples_per_s = 180;
  report.results = {one, two};
  fill_scaling_efficiency(report.results);
  EXPECT_FALSE(report.results[0].distributed->scaling_efficiency);
  ASSERT_TRUE(report.results[1].distributed->scaling_efficiency);
  EXPECT_DOUBLE_EQ(*report.results[1].distributed->scaling_efficiency, 180.0 / (2 * 100.0));

  const std::string text = results_file_text(report);
  const RunReport back = results_from_json(json::parse(text), "r.json");
  EXPECT_EQ(results_file_text(back), text);
  ASSERT_TRUE(back.results[1].distributed);
  const DistributedReport& d = *back.results[1].distributed;
  EXPECT_EQ(d.world_size, 2);
  EXPECT_EQ(d.engine, "gloo");
  EXPECT_TRUE(back.results[0].distributed->engine.empty()) << "no engine recorded: null, read back as none";
  EXPECT_EQ(d.launcher, Launcher::env);
  EXPECT_EQ(d.ranks[1].host, "b");
  EXPECT_EQ(d.ranks[1].cpus, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(d.ranks[1].data_wait_fraction, 0.25);
  EXPECT_EQ(d.bytes_per_step, 4800000);
  EXPECT_DOUBLE_EQ(*d.scaling_efficiency, 0.9);
  EXPECT_NE(describe(d).find("2 ranks (gloo, env)"), std::string::npos) << describe(d);
}

// A record member without a JSON key is dropped from every results file without a word. The
// pins below fail when a member is added or removed without its key. A plain member needs only its
// row in the record's k...Fields (src/core/json_fields.h), which these pins count; one written by
// hand in the record's to_json/read_* needs its count here updated. Members deliberately not
// written are named.
template <typename Fields>
constexpr std::size_t rows = std::tuple_size_v<Fields>;

TEST(ResultsJson, ATraceReadsBackAsWritten) {
  TraceReport t{"/tmp/traces/vit_synthetic.a.json", "kineto", {"cpu", "cuda"}, 16, {41.5, 40.25, 42.0, 39.75, 40.5}};
  const nlohmann::json j = to_json(t);
  EXPECT_EQ(j["steps"], 5);
  const TraceReport back = read_trace_report(JsonView(j, "results.json", "/results/0/trace"));
  EXPECT_EQ(back.path, t.path);
  EXPECT_EQ(back.profiler, "kineto");
  EXPECT_EQ(back.activities, t.activities);
  EXPECT_EQ(back.first_step, 16);
  EXPECT_EQ(back.step_ms, t.step_ms);
  nlohmann::json wrong = j;
  wrong["steps"] = 4;
  try {
    read_trace_report(JsonView(wrong, "results.json", "/results/0/trace"));
    FAIL() << "steps must count step_ms";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "results.json: /results/0/trace/steps: differs from the number of step_ms");
  }
}

TEST(ResultsJson, EveryRecordMemberHasAKey) {
  using pperf::testing::member_count;
  EXPECT_EQ(member_count<RunReport>(), 26u);  // + replicates (issue 68), + scaling (src/core/scaling_curve.h)
  EXPECT_EQ(member_count<HostPooling>(), rows<decltype(kHostPoolingFields)>);
  EXPECT_EQ(member_count<Placement>(), rows<decltype(kPlacementFields)>);  // unknown_fields: written back as they were read
  // By hand: preset, batch_size, samples_per_step, status, reason, instances, measurement, step,
  // spread, samples_per_s, bottleneck, partial, cost, comparison, decision, model, data, execution,
  // memory, events, distributed, checkpoint, spot, spot_drill, trace; unknown_fields, as above.
  EXPECT_EQ(member_count<Result>(), rows<decltype(kResultFields)> + 28u);  // + params, hosts
  EXPECT_EQ(member_count<PricedGroup>(), 9u);
  EXPECT_EQ(member_count<Cost>(), rows<decltype(kCostFields)> + 2u);  // usd_per_hour_range, to_train
  EXPECT_EQ(member_count<ToTrain>(), 3u);
  EXPECT_EQ(member_count<Comparison>(), 4u);
  EXPECT_EQ(member_count<StepTimeEstimate>(), 6u);
  EXPECT_EQ(member_count<StepTimeSpread>(), 5u);  // mean_ms: step_time_ms.mean, the estimate's
  EXPECT_EQ(member_count<GpuUtilization>(), rows<decltype(kGpuUtilizationFields)> + 1u);  // gpu
  EXPECT_EQ(member_count<DevicePeak>(), 10u);
  EXPECT_EQ(member_count<MathSettings>(), rows<decltype(kMathSettingsFields)>);
  EXPECT_EQ(member_count<ExecutionReport>(), 17u);  // data_wire, data_wire_bytes_per_sample, data_link: by hand
  EXPECT_EQ(member_count<DataLinkReport>(), 5u);
  EXPECT_EQ(member_count<MemoryReport>(), 5u);
  EXPECT_EQ(member_count<ProcessMemory>(), 3u);
  EXPECT_EQ(member_count<DeviceMemory>(), 3u);
  EXPECT_EQ(member_count<Bottleneck>(), 7u);
  EXPECT_EQ(member_count<ModelInfo>(), 4u);     // events: moved into the result's events
  EXPECT_EQ(member_count<DataInfo>(), 3u);
  EXPECT_EQ(member_count<Measurement>(), 10u);
  EXPECT_EQ(member_count<StopCause>(), 2u);  // code: the result's `stop_reason`; text: measurement.stop_reason
  EXPECT_EQ(member_count<Turns>(), 8u);
  EXPECT_EQ(member_count<Decision>(), rows<decltype(kDecisionFields)> + 2u);  // verdict, looks
  EXPECT_EQ(member_count<DistributedReport>(), 10u);
  EXPECT_EQ(member_count<RankReport>(), 5u);
  EXPECT_EQ(member_count<CheckpointCost>(), 5u);
  EXPECT_EQ(member_count<SpotEstimate>(), 25u);
  EXPECT_EQ(member_count<SpotDrill>(), 7u);
}

// Every key a result or the run holds is one the reader reads: a golden file read back keeps
// nothing in unknown_fields (the known keys are derived from the reader, so a key the writer
// writes and the reader forgets would land there and fail this).
TEST(ResultsJson, TheReaderReadsEveryKeyTheWriterWrites) {
  for (const auto& path : golden_files()) {
    const RunReport report = read_results_file(path);
    EXPECT_EQ(report.unknown_fields, json::object()) << path;
    for (const auto& r : report.results) EXPECT_EQ(r.unknown_fields, json::object()) << path << " " << r.configuration;
  }
}

// warmup_s (a compiled step's compilation) is written when measured and read back; files from
// before it have none, and are written back without it (byte-identical round trip).
TEST(ResultsJson, WarmupSecondsRoundTripWhenRecorded) {
  Measurement m;
  m.warmup_steps = 2;
  m.warmup_s = 12.5;
  const json written = to_json(m);
  ASSERT_TRUE(written.contains("warmup_s"));
  EXPECT_EQ(read_measurement(JsonView(written, "m.json")).warmup_s, std::optional<double>(12.5));
  json old = written;
  old.erase("warmup_s");
  const Measurement before = read_measurement(JsonView(old, "m.json"));
  EXPECT_FALSE(before.warmup_s);
  EXPECT_FALSE(to_json(before).contains("warmup_s"));
}

// What the turns cost (un-timed steps after switches, their time, the turns' wall time) is
// written and read back; files from before have none and are written back without them.
TEST(ResultsJson, TurnsCostRoundTripsWhenRecorded) {
  Measurement m;
  m.turns = Turns{Schedule::interleaved, 10, 12, {"a", "b"}, 3, 14, 0.25, 6.5};
  const json written = to_json(m);
  EXPECT_EQ(written["untimed_steps_per_round"], 3);
  EXPECT_EQ(written["untimed_steps"], 14);
  EXPECT_EQ(written["untimed_s"], 0.25);
  EXPECT_EQ(written["turns_wall_s"], 6.5);
  const Turns read = read_measurement(JsonView(written, "m.json")).turns;
  EXPECT_EQ(read.most_untimed_steps, 3);
  EXPECT_EQ(read.untimed_steps, std::optional<int64_t>(14));
  EXPECT_EQ(read.untimed_s, std::optional<double>(0.25));
  EXPECT_EQ(read.wall_s, std::optional<double>(6.5));
  EXPECT_EQ(read.rounds, 12);
  EXPECT_EQ(read.round_steps, 10);
  json old = written;
  for (const char* key : {"untimed_steps", "untimed_s", "turns_wall_s"}) old.erase(key);
  const Measurement before = read_measurement(JsonView(old, "m.json"));
  EXPECT_FALSE(before.turns.untimed_steps || before.turns.untimed_s || before.turns.wall_s);
  EXPECT_EQ(to_json(before), old);
}

// A GPU's peaks: fp32, TF32 and bf16 apart, measured and from the datasheet, and the math
// settings the steps ran under, round-trip.
TEST(ResultsJson, GpuPeaksAndMathSettingsRoundTrip) {
  ExecutionReport e;
  e.device = "cuda:0";
  e.device_peak = DevicePeak{19000, 250000, "8192x8192x8192"};
  e.device_peak->tf32_gflops = 120000;
  e.device_peak->model = "NVIDIA A100-SXM4-40GB";
  e.device_peak->cudnn_tf32 = true;
  e.device_peak->datasheet_fp32_gflops = 19500;
  e.device_peak->datasheet_tf32_gflops = 156000;
  e.device_peak->datasheet_bf16_gflops = 312000;
  e.math = MathSettings{true, false, true};
  const json written = to_json(e);
  EXPECT_EQ(written["device_peak_gflops"]["fp32_tf32"], 120000.0);
  EXPECT_EQ(written["device_peak_gflops"]["datasheet"]["fp32_tf32"], 156000.0);
  EXPECT_EQ(written["math"], json({{"cudnn_benchmark", true}, {"tf32_matmul", false}, {"tf32_cudnn", true}}));
  const ExecutionReport read = read_execution(JsonView(written, "r.json"));
  EXPECT_EQ(to_json(read), written);
  EXPECT_EQ(read.device_peak->tf32_gflops, std::optional<double>(120000));
  EXPECT_EQ(read.device_peak->datasheet_fp32_gflops, std::optional<double>(19500));
  EXPECT_EQ(read.math->cudnn_benchmark, true);
  EXPECT_FALSE(read_execution(JsonView(to_json(ExecutionReport{}), "r.json")).math) << "CPU results have none";
}

// Before TF32's datasheet figure had a key of its own, `datasheet.fp32` held it when the run used
// TF32; such a file reads it as TF32's, and its measured TF32 peak as unknown.
TEST(ResultsJson, AnOldDevicePeakReadsItsDatasheetFigureAsTheOneItWas) {
  const json old = {{"fp32", 19000.0},
                    {"bf16", 250000.0},
                    {"gemm", "8192x8192x8192"},
                    {"model", "NVIDIA A100-SXM4-40GB"},
                    {"tf32", {{"matmul", false}, {"cudnn", true}}},
                    {"datasheet", {{"fp32", 156000.0}, {"bf16", 312000.0}}}};
  const DevicePeak p = read_device_peak(JsonView(old, "r.json"));
  EXPECT_FALSE(p.tf32_gflops);
  EXPECT_EQ(p.datasheet_tf32_gflops, std::optional<double>(156000));
  EXPECT_FALSE(p.datasheet_fp32_gflops);
  json no_tf32 = old;
  no_tf32["tf32"]["cudnn"] = false;
  EXPECT_EQ(read_device_peak(JsonView(no_tf32, "r.json")).datasheet_fp32_gflops, std::optional<double>(156000));
}
