// A config's `sweep` (docs/config.md "Sweeps"): its axes read, checked against the workloads, and
// expanded to one configuration per point.
#include <algorithm>
#include <cmath>
#include <set>

#include "src/config/config_parse.h"
#include "src/core/json_view.h"

namespace pperf {

namespace config_detail {
namespace {
/// One value of an axis, read and applied: how a name spells it and what it sets.
struct KnobValue {
  std::string name;  // "8", "0-3", "any"
  nlohmann::json value;
  std::string pointer;
};

/// "0-3" for a run of CPUs, "0_2_5" otherwise (',' separates a point's axes).
std::string cpus_name(const std::vector<int>& cpus) {
  bool run = cpus.size() > 1;
  for (size_t i = 1; i < cpus.size(); ++i) run = run && cpus[i] == cpus[i - 1] + 1;
  if (run) return std::to_string(cpus.front()) + "-" + std::to_string(cpus.back());
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : "_") + std::to_string(c);
  return out;
}

/// One value of knob `knob` at `v`: checked (a CPU list or "any" for cpus; a positive integer
/// otherwise) and named.
KnobValue read_knob_value(const std::string& knob, const JsonView& v) {
  if (knob == "cpus") {
    if (v.raw().is_string()) {
      v.as_choice({"any"});
      return {"any", nlohmann::json::array(), v.pointer()};
    }
    const std::vector<int> cpus = parse_cpus(v);
    return {cpus_name(cpus), nlohmann::json(cpus), v.pointer()};
  }
  if (knob == "precision") {
    const std::string x = v.as_string();
    if (x.empty() || x.find_first_of(",=") != std::string::npos) v.fail("a precision is a name such as \"bf16\", got \"" + x + "\"");
    return {x, x, v.pointer()};
  }
  const int64_t x = v.as_positive_int();
  return {std::to_string(x), x, v.pointer()};
}

/// An axis's values: a list, or {"from", "to", "step"} over integers.
std::vector<KnobValue> read_axis(const std::string& knob, const JsonView& v) {
  std::vector<KnobValue> values;
  if (v.raw().is_object()) {
    v.expect_object({"from", "to", "step"});
    if (knob == "cpus") v.fail("cpus takes a list of CPU sets (e.g. [[0], [0, 1], \"any\"]), not a range");
    if (knob == "precision") v.fail("precision takes a list of names (e.g. [\"fp32\", \"bf16\"]), not a range");
    const int64_t from = v.at("from").as_positive_int(), to = v.at("to").as_positive_int();
    const int64_t step = v.positive_int_or("step", 1);
    if (to < from) v.at("to").fail("must be >= from (" + std::to_string(from) + ")");
    const int64_t count = (to - from) / step + 1;
    if (count > static_cast<int64_t>(kMaxSweepPoints)) v.fail("more than " + std::to_string(kMaxSweepPoints) + " values");
    for (int64_t i = 0; i < count; ++i) values.push_back({std::to_string(from + i * step), from + i * step, v.pointer()});
  } else {
    for (const auto& item : v.items()) {
      KnobValue value = read_knob_value(knob, item);
      for (const auto& seen : values)
        if (seen.name == value.name) item.fail("duplicate value " + value.name + " of axis '" + knob + "'");
      values.push_back(std::move(value));
    }
    if (values.empty()) v.fail("needs at least one value");
  }
  return values;
}

/// The configuration path a knob sets (for sweep_pointers).
std::string knob_path(const std::string& knob, const Configuration& c) {
  if (knob == "threads" || knob == "interop_threads" || knob == "cpus") return "/execution/" + knob;
  if (knob == "data_instances") return "/instances";
  if (knob == "batch_size" || knob == "precision") return "/workload/" + knob;  // no such path: the value's pointer stays
  if (knob == "workers" && c.execution.data.spawn_local_processes > 0) return "/execution/data/spawn_local/workers";
  return "/execution/data/" + knob;
}

/// `c` with knob set to `value`; a knob this configuration cannot take is refused at `at`.
void apply_knob(Configuration& c, const std::string& knob, const KnobValue& value, const JsonView& at) {
  ExecutionSettings& e = c.execution;
  if (knob == "batch_size") c.workload_batch_size = value.value.get<int64_t>();
  else if (knob == "precision") c.workload_params["precision"] = value.value;
  else if (knob == "threads") e.threads = value.value.get<int64_t>();
  else if (knob == "interop_threads") e.interop_threads = value.value.get<int64_t>();
  else if (knob == "cpus") e.cpus = value.value.get<std::vector<int>>();
  else if (knob == "prefetch_batches") e.data.prefetch_batches = value.value.get<int64_t>();
  else if (knob == "workers") {
    if (e.data.mode == DataMode::service && e.data.spawn_local_processes == 0)
      at.fail("configuration '" + c.name + "' reads data workers at 'endpoints', which run elsewhere: their workers are not pperf's to sweep");
    if (e.data.spawn_local_processes > 0) e.data.spawn_local_workers = value.value.get<int64_t>();
    else e.data.workers = value.value.get<int64_t>();
  } else if (knob == "data_instances") {
    auto group = std::find_if(c.instances.begin(), c.instances.end(), [](const InstanceGroup& g) { return g.role == "data"; });
    if (group == c.instances.end())
      at.fail("configuration '" + c.name + "' has no instance group with role 'data' to count");
    group->count = value.value.get<int64_t>();
    // Emulated here: one spawned data worker process per data instance.
    if (e.data.spawn_local_processes > 0) e.data.spawn_local_processes = group->count;
  }
}

/// A value of the workload's knobs (batch_size, precision) that some workload of `config` cannot
/// run: refused at the value's own pointer (/sweep/axes/precision/1).
void check_workload_value(const std::string& knob, const KnobValue& value, const Config& config, const WorkloadRegistry& registry) {
  if (knob != "precision") return;
  for (const auto& w : config.workloads) {
    const WorkloadDescriptor* d = registry.find(w.name);
    const ParamSpec* p = d ? d->find_param("precision") : nullptr;
    if (!p) continue;  // refused for the whole axis by check_axis_against_workloads
    if (!p->choices.empty() && std::find(p->choices.begin(), p->choices.end(), value.name) == p->choices.end())
      throw InputError(config.path, value.pointer,
                       "workload '" + w.name + "' cannot run precision '" + value.name + "'" + did_you_mean(value.name, p->choices) +
                           "; it runs " + join_names(p->choices));
  }
}

/// The knobs a workload must have for an axis: the data knobs need pperf's input pipeline, a
/// precision axis a workload with a precision param.
void check_axis_against_workloads(const std::string& knob, const JsonView& at, const Config& config,
                                  const WorkloadRegistry& registry) {
  if (knob == "precision")
    for (const auto& w : config.workloads) {
      const WorkloadDescriptor* d = registry.find(w.name);
      if (d && !d->find_param("precision"))
        at.fail("workload '" + w.name + "' has no precision to choose (no 'precision' param): the axis 'precision' would change nothing");
    }
  if (knob != "workers" && knob != "prefetch_batches" && knob != "data_instances") return;
  for (const auto& w : config.workloads) {
    const WorkloadDescriptor* d = registry.find(w.name);
    if (d && !d->capabilities.data_workers)
      at.fail("workload '" + w.name + "' lacks an input pipeline of pperf's (the capability data_workers): the axis '" + knob +
              "' would change nothing");
  }
}


/// An axis's knob is one sweep_knobs() names, and one every workload of `config` has.
void check_knob(const std::string& knob, const JsonView& at, const Config& config, const WorkloadRegistry& registry) {
  const auto& known = sweep_knobs();
  if (std::find(known.begin(), known.end(), knob) == known.end()) {
    at.fail("unknown axis '" + knob + "'" + did_you_mean(knob, known) + "; known: " + join_names(known));
  }
  check_axis_against_workloads(knob, at, config, registry);
}

/// A sweep's points: each its (knob, value) pairs in order, and where a point's refusal points.
struct SweepPoints {
  std::vector<std::vector<std::pair<std::string, KnobValue>>> points;
  std::vector<JsonView> views;
};

/// `axes`: every combination of their values, the last axis varying fastest; the axes and their
/// values recorded in `s`.
SweepPoints grid_points(const JsonView& axes, SweepSettings& s, const Config& config, const WorkloadRegistry& registry) {
  if (!axes.raw().is_object()) axes.fail("must be an object: {\"knob\": [values] or {\"from\", \"to\", \"step\"}}");
  std::vector<std::vector<KnobValue>> values;
  size_t grid = 1;
  std::string dims;
  for (const auto& knob : axes.keys()) {
    const JsonView axis = axes.at(knob);
    check_knob(knob, axis, config, registry);
    values.push_back(read_axis(knob, axis));
    s.axes.push_back(knob);
    s.values.emplace_back();
    for (const auto& v : values.back()) s.values.back().push_back(v.name);
    grid *= values.back().size();
    dims += (dims.empty() ? "" : " x ") + std::to_string(values.back().size());
    if (grid > kMaxSweepPoints)
      axes.fail("the grid has more than " + std::to_string(kMaxSweepPoints) + " points (" + dims +
                (values.size() < axes.keys().size() ? " x ..." : "") + "): list the points wanted under 'points', or narrow an axis");
  }
  if (values.empty()) axes.fail("needs at least one axis");
  SweepPoints out;
  for (size_t n = 0; n < grid; ++n) {
    std::vector<std::pair<std::string, KnobValue>> point;
    // The last axis varies fastest.
    for (size_t a = values.size(), rest = n; a-- > 0;) {
      point.insert(point.begin(), {s.axes[a], values[a][rest % values[a].size()]});
      rest /= values[a].size();
    }
    out.points.push_back(std::move(point));
    out.views.push_back(axes);
  }
  return out;
}

/// `points`: these, in order; each knob's values recorded in `s` as first seen.
SweepPoints listed_points(const JsonView& listed, SweepSettings& s, const Config& config, const WorkloadRegistry& registry) {
  const std::vector<JsonView> items = listed.items();
  if (items.empty()) listed.fail("needs at least one point");
  if (items.size() > kMaxSweepPoints)
    listed.fail(std::to_string(items.size()) + " points, over the maximum of " + std::to_string(kMaxSweepPoints));
  SweepPoints out;
  for (const auto& item : items) {
    if (!item.raw().is_object()) item.fail("a point is an object {\"knob\": value, ...}");
    std::vector<std::pair<std::string, KnobValue>> point;
    for (const auto& knob : item.keys()) {
      check_knob(knob, item.at(knob), config, registry);
      point.push_back({knob, read_knob_value(knob, item.at(knob))});
      if (std::find(s.axes.begin(), s.axes.end(), knob) == s.axes.end()) s.axes.push_back(knob), s.values.emplace_back();
      auto& axis_values = s.values[std::find(s.axes.begin(), s.axes.end(), knob) - s.axes.begin()];
      if (std::find(axis_values.begin(), axis_values.end(), point.back().second.name) == axis_values.end())
        axis_values.push_back(point.back().second.name);
    }
    if (point.empty()) item.fail("a point sets at least one knob");
    out.points.push_back(std::move(point));
    out.views.push_back(item);
  }
  return out;
}

/// Point `n` of `points` as a configuration: `base` with the point's knobs set, named from its
/// values; the first point is the baseline. `axes` given: the values are read there.
Configuration point_configuration(const Configuration& base, const SweepPoints& points, size_t n,
                                  const std::optional<JsonView>& axes, const Config& config, const WorkloadRegistry& registry) {
  Configuration c = base;
  c.baseline = n == 0;
  std::string name;
  for (const auto& kv : points.points[n]) {
    const JsonView at = axes ? axes->at(kv.first) : points.views[n].at(kv.first);
    check_workload_value(kv.first, kv.second, config, registry);
    apply_knob(c, kv.first, kv.second, at);
    name += (name.empty() ? "" : ",") + kv.first + "=" + kv.second.name;
    c.sweep_values.push_back({kv.first, kv.second.name});
    c.sweep_pointers.push_back({knob_path(kv.first, base), kv.second.pointer});
  }
  c.name = name;
  // The priced accelerators follow the groups' counts (data groups carry none, but be exact).
  c.priced_gpus = priced_gpus(c.instances, config.price_table);
  return c;
}
}  // namespace

void expand_sweep(const JsonView& sweep, Config& config, const WorkloadRegistry& registry) {
  sweep.expect_object({"axes", "points"});
  if (config.configurations.size() != 1)
    sweep.fail("a sweep varies one configuration, and this config has " + std::to_string(config.configurations.size()) +
               ": give exactly one under /configurations");
  if (config.priced_only) sweep.fail("a sweep measures its points: its configuration must not give step_time_ms");
  const auto axes = sweep.find("axes"), listed = sweep.find("points");
  if (axes && listed) listed->fail("give 'axes' (every combination) or 'points' (these), not both");
  if (!axes && !listed) sweep.fail("needs 'axes' (every combination) or 'points' (these)");
  const Configuration base = config.configurations.front();
  SweepSettings s;
  s.base = base.name;
  s.grid = axes.has_value();
  const SweepPoints points = axes ? grid_points(*axes, s, config, registry) : listed_points(*listed, s, config, registry);
  std::vector<Configuration> expanded;
  std::set<std::string> names;
  for (size_t n = 0; n < points.points.size(); ++n) {
    Configuration c = point_configuration(base, points, n, axes, config, registry);
    if (!names.insert(c.name).second) points.views[n].fail("duplicate point " + c.name);
    expanded.push_back(std::move(c));
  }
  config.configurations = std::move(expanded);
  config.sweep = std::move(s);
}
}  // namespace config_detail

const std::vector<std::string>& sweep_knobs() {
  static const std::vector<std::string> knobs{"threads",          "interop_threads", "cpus",      "workers",
                                              "prefetch_batches", "data_instances",  "batch_size", "precision"};
  return knobs;
}

}  // namespace pperf
