#include "src/config/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "src/core/json_view.h"
#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/config/config_parse.h"

namespace pperf {

std::optional<DeviceChoice> DeviceChoice::parse(const std::string& text) {
  if (text == "cpu") return DeviceChoice{};
  if (text == "cuda") return DeviceChoice{Kind::every_gpu};
  const bool cuda_n = text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() < 9 &&
                      text.find_first_not_of("0123456789", 5) == std::string::npos;
  if (!cuda_n) return std::nullopt;
  return DeviceChoice{Kind::gpu, std::stoll(text.substr(5))};
}

std::string DeviceChoice::name() const {
  switch (kind) {
    case Kind::cpu: return "cpu";
    case Kind::every_gpu: return "cuda";
    case Kind::gpu: return "cuda:" + std::to_string(index);
  }
  return "cpu";
}

std::string DeviceChoice::torch_device(int64_t ordinal) const {
  switch (kind) {
    case Kind::cpu: return "cpu";
    case Kind::every_gpu: return "cuda:" + std::to_string(ordinal);
    case Kind::gpu: return name();
  }
  return "cpu";
}

namespace {

Market read_market(const JsonView& v) { return *parse_market(v.as_choice({"on_demand", "spot"})); }

/// The directory a config's relative paths are read from: the config file's own, "." for a file
/// named without one ("ps.json"), never the empty path (which a Python worker would not search).
std::filesystem::path config_directory(const std::string& config_path) {
  const std::filesystem::path dir = std::filesystem::path(config_path).parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

/// `path` as written when absolute, else read from the config's directory.
std::string relative_to_config(const std::filesystem::path& path, const std::string& config_path) {
  return (path.is_absolute() ? path : config_directory(config_path) / path).lexically_normal().string();
}

/// A table named by path is read relative to the config's directory; a bare name is a shipped table.
std::string table_relative_to_config(const std::string& name_or_path, const std::string& config_path) {
  const std::filesystem::path path(name_or_path);
  const bool bare_name = name_or_path.find('/') == std::string::npos && path.extension() != ".json";
  if (bare_name) return name_or_path;
  return relative_to_config(path, config_path);
}

PricingSettings parse_pricing(const JsonView& v) {
  v.expect_object({"table", "region", "market", "discount_pct", "interruptions", "max_age_days"});
  PricingSettings p;
  p.table = table_relative_to_config(v.at("table").as_string(), v.file());
  p.region = v.string_or("region", "");
  p.interruptions = table_relative_to_config(v.string_or("interruptions", p.interruptions), v.file());
  if (auto a = v.find("max_age_days")) p.max_age_days = a->as_positive_int();
  if (auto m = v.find("market")) p.market = read_market(*m);
  if (auto d = v.find("discount_pct")) {
    p.discount_pct = d->as_number();
    if (p.discount_pct < 0 || p.discount_pct >= 100) d->fail("must be in [0, 100)");
  }
  return p;
}

MeasureSettings parse_measure(const JsonView& v) {
  v.expect_object({"warmup_steps", "min_steps", "max_steps", "max_seconds", "stop", "target_rel_ci", "equivalence_pct",
                   "max_memory_gib"});
  MeasureSettings m;
  if (auto w = v.find("warmup_steps")) m.warmup_steps = w->as_non_negative_int();
  m.min_steps = v.positive_int_or("min_steps", m.min_steps);
  m.max_steps = v.positive_int_or("max_steps", m.max_steps);
  if (auto s = v.find("max_seconds")) m.max_seconds = s->as_positive_number();
  if (auto t = v.find("target_rel_ci")) m.target_rel_ci = t->as_positive_number();
  if (auto c = v.find("stop")) {
    std::vector<std::string> names;
    for (const auto& criterion : stop_criteria()) names.push_back(criterion.name);
    m.criterion = c->as_choice(names);
  }
  if (auto e = v.find("equivalence_pct")) m.decision.equivalence_pct = e->as_positive_number();
  if (auto g = v.find("max_memory_gib")) m.max_memory_gib = g->as_positive_number();
  if (m.min_steps > m.max_steps)
    v.at("min_steps").fail("min_steps (" + std::to_string(m.min_steps) + ") exceeds max_steps (" +
                           std::to_string(m.max_steps) + ")");
  return m;
}

}  // namespace

namespace config_detail {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// A CPU list. Whether those CPUs exist here is the plan's question, not validity's: a config
/// written for a 96-CPU instance is valid on a laptop.
std::vector<int> parse_cpus(const JsonView& v) {
  std::vector<int> cpus;
  for (const auto& c : v.items()) {
    const int64_t cpu = c.as_non_negative_int();
    if (cpu > 65535) c.fail("CPU " + std::to_string(cpu) + " is beyond any host's CPU numbers");
    cpus.push_back(static_cast<int>(cpu));
  }
  if (cpus.empty()) v.fail("needs at least one CPU");
  return cpus;
}

int64_t priced_gpus(const std::vector<InstanceGroup>& groups, const PriceTable& table) {
  int64_t gpus = 0;
  for (const auto& g : groups)
    // A fraction of a GPU (g6f) is still one device to run a rank on.
    if (const InstanceSpec* spec = table.find(g.type); spec && g.role == "dnn")
      gpus += static_cast<int64_t>(std::ceil(g.count * spec->accelerators));
  return gpus;
}

}  // namespace config_detail

using namespace config_detail;

namespace {

void check_param_type(const JsonView& v, const ParamSpec& spec) {
  // The registry guarantees spec.type is one of param_types().
  if (spec.type == "string" || spec.type == "path") {
    if (spec.choices.empty()) v.as_string();
    else v.as_choice(spec.choices);
  } else if (spec.type == "number") {
    v.as_number();
  } else if (spec.type == "integer") {
    v.as_int();
  } else if (spec.type == "bool") {
    v.as_bool();
  } else if (spec.type == "integer_list") {
    for (const auto& item : v.items()) item.as_int();
  } else if (spec.type == "object") {
    if (!v.raw().is_object()) v.fail("must be an object, got " + v.raw().dump());
  }
}

/// A workload entry, or (with `native`, the entry's `native` object) what it runs on the real
/// instances: `native`'s preset, batch_size and params replace the entry's, the rest is the entry's.
WorkloadSpec parse_workload(const JsonView& v, const WorkloadRegistry& registry, bool labels_only,
                            uint64_t seed, std::vector<PathParam>& paths,
                            const std::optional<JsonView>& native = std::nullopt) {
  v.expect_object({"name", "preset", "batch_size", "params", "native"});
  if (native) native->expect_object({"preset", "batch_size", "params"});
  auto pick = [&](const std::string& key) -> std::optional<JsonView> {
    if (native)
      if (auto n = native->find(key)) return n;
    return v.find(key);
  };
  WorkloadSpec spec;
  spec.seed = seed;
  JsonView name = v.at("name");
  spec.name = name.as_string();
  if (labels_only) {
    if (auto p = pick("preset")) spec.preset = p->as_string();
    const auto batch = pick("batch_size");
    spec.batch_size = batch ? batch->as_positive_int() : v.at("batch_size").as_positive_int();
    if (auto p = v.find("params")) spec.params = p->raw();
    if (native)
      if (auto p = native->find("params"))
        for (const auto& [key, value] : p->raw().items()) spec.params[key] = value;
    return spec;
  }
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor)
    name.fail("unknown workload '" + spec.name + "'" + did_you_mean(spec.name, registry.names()) + "; known: " +
              join_names(registry.names()));

  std::string preset;
  if (auto p = pick("preset")) {
    preset = p->as_string();
    if (!descriptor->find_preset(preset))
      p->fail("unknown preset '" + preset + "' of " + spec.name + did_you_mean(preset, descriptor->preset_names()) +
              "; known: " + join_names(descriptor->preset_names()));
  }
  const auto batch = pick("batch_size");
  const int64_t batch_size = batch ? batch->as_positive_int() : 0;
  nlohmann::json overrides = nlohmann::json::object();
  std::vector<std::string> known;
  for (const auto& p : descriptor->params) known.push_back(p.name);
  const std::optional<JsonView> params = v.find("params");
  const std::optional<JsonView> native_params = native ? native->find("params") : std::nullopt;
  if (params) params->expect_object(known);
  if (native_params) native_params->expect_object(known);
  for (const auto& p : descriptor->params) {
    std::optional<JsonView> value = native_params ? native_params->find(p.name) : std::nullopt;
    if (!value && params) value = params->find(p.name);
    if (!value) continue;
    check_param_type(*value, p);
    overrides[p.name] = value->raw();
    if (p.type == "path" && !value->as_string().empty()) {
      // Relative to the config file, not to wherever pperf was started.
      overrides[p.name] = relative_to_config(value->as_string(), v.file());
      paths.push_back({value->pointer(), overrides[p.name].get<std::string>()});
    }
  }
  WorkloadSpec complete = make_workload_spec(*descriptor, preset, batch_size, overrides, seed);
  complete.config_dir = config_directory(v.file()).lexically_normal().string();
  return complete;
}

/// "pkg.module:function": dotted Python identifiers, a colon, an identifier.
bool is_module_factory(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) return false;
  auto identifier = [](const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  };
  std::string module = text.substr(0, colon);
  for (size_t start = 0;;) {
    const auto dot = module.find('.', start);
    if (!identifier(module.substr(start, dot == std::string::npos ? std::string::npos : dot - start))) return false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return identifier(text.substr(colon + 1));
}

DataSettings parse_data(const JsonView& v) {
  v.expect_object({"mode", "workers", "prefetch_batches", "endpoints", "spawn_local", "tls_ca", "worker", "dataset",
                   "dataloader", "dataset_kwargs", "python_path", "wire", "link_gbps", "link_scale"});
  DataSettings d;
  if (auto w = v.find("worker")) d.worker = read_enum<DataWorker>(*w);
  const auto dataset = v.find("dataset"), dataloader = v.find("dataloader");
  if (dataset && dataloader) dataloader->fail("give 'dataset' or 'dataloader', not both");
  if (auto ds = dataset ? dataset : dataloader) {
    const std::string key = dataset ? "dataset" : "dataloader";
    d.dataset = ds->as_string();
    d.dataset_is_dataloader = !dataset;
    if (d.worker != DataWorker::python) ds->fail("'" + key + "' needs \"worker\": \"python\"");
    if (!is_module_factory(d.dataset))
      ds->fail("expected \"module:factory\" (a Python module path and a function in it), got '" + d.dataset + "'");
  } else if (d.worker == DataWorker::python) {
    v.fail("\"worker\": \"python\" needs \"dataset\" (or \"dataloader\"): \"module:factory\"");
  }
  if (auto k = v.find("dataset_kwargs")) {
    if (d.worker != DataWorker::python) k->fail("'dataset_kwargs' needs \"worker\": \"python\"");
    if (!k->raw().is_object()) k->fail("expected an object (the factory's keyword arguments)");
    d.dataset_kwargs = k->raw();
  }
  if (auto pp = v.find("python_path")) {
    if (d.worker != DataWorker::python) pp->fail("'python_path' needs \"worker\": \"python\"");
    for (const auto& item : pp->items()) {
      if (item.as_string().empty()) item.fail("must name a directory");
      d.python_path.push_back(relative_to_config(item.as_string(), v.file()));
    }
  } else if (d.worker == DataWorker::python) {
    d.python_path.push_back(config_directory(v.file()).lexically_normal().string());
  }
  if (auto m = v.find("mode")) d.mode = read_enum<DataMode>(*m);
  if (auto w = v.find("wire")) {
    d.wire = w->as_choice(wire_formats());
    if (d.mode != DataMode::service && d.worker != DataWorker::python)
      w->fail("'wire' needs data mode 'service' or a Python worker (pperf's local loader hands the step its batches in memory)");
  }
  if (auto link = v.find("link_gbps")) {
    if (link->raw().is_string()) {
      if (link->as_string() != "table") link->fail("expected a number > 0 (Gbit/s) or \"table\" (the price table's figures)");
      d.link_from_table = true;
    } else {
      d.link_gbps = link->as_positive_number();
    }
  }
  if (auto scale = v.find("link_scale")) {
    if (!v.find("link_gbps")) scale->fail("'link_scale' needs 'link_gbps'");
    d.link_scale = scale->as_positive_number();
  }
  d.workers = v.positive_int_or("workers", d.workers);
  d.prefetch_batches = v.positive_int_or("prefetch_batches", d.prefetch_batches);
  if (auto e = v.find("endpoints")) {
    for (const auto& item : e->items()) {
      std::string endpoint = item.as_string();
      if (endpoint.find(':') == std::string::npos) item.fail("expected host:port, got '" + endpoint + "'");
      d.endpoints.push_back(endpoint);
    }
  }
  if (auto s = v.find("spawn_local")) {
    s->expect_object({"processes", "workers", "cpus"});
    d.spawn_local_processes = s->positive_int_or("processes", 1);
    d.spawn_local_workers = s->positive_int_or("workers", 1);
    if (auto cpus = s->find("cpus")) d.spawn_local_cpus = parse_cpus(*cpus);
  }
  if (auto ca = v.find("tls_ca")) {
    d.tls_ca = ca->as_string();
    if (d.tls_ca.empty()) ca->fail("must name a PEM file");
    if (d.endpoints.empty()) ca->fail("tls_ca applies to 'endpoints' (spawned workers listen on loopback)");
    d.tls_ca = relative_to_config(d.tls_ca, v.file());
  }
  if (d.mode == DataMode::service && d.endpoints.empty() && d.spawn_local_processes == 0)
    v.fail("data mode 'service' needs 'endpoints' or 'spawn_local'");
  if (d.mode == DataMode::local && (!d.endpoints.empty() || d.spawn_local_processes > 0))
    v.fail("'endpoints' and 'spawn_local' need data mode 'service'");
  if ((d.link_gbps || d.link_from_table) && d.spawn_local_processes == 0)
    v.at("link_gbps").fail("the link is emulated between the trainer and the data workers pperf starts: it needs 'spawn_local'");
  return d;
}

DistributedSettings parse_distributed(const JsonView& v) {
  v.expect_object({"world_size", "backend", "spawn_local", "timeout_s", "bucket_mib"});
  DistributedSettings d;
  d.world_size = v.at("world_size").as_positive_int();
  if (auto b = v.find("backend")) d.backend = b->as_choice({"gloo", "nccl"});
  if (auto s = v.find("spawn_local")) {
    s->expect_object({"cpus_per_rank"});
    d.spawn_local = true;
    if (auto c = s->find("cpus_per_rank")) d.cpus_per_rank = c->as_positive_int();
  }
  if (auto t = v.find("timeout_s")) d.timeout_s = t->as_positive_number();
  d.bucket_mib = v.positive_int_or("bucket_mib", d.bucket_mib);
  return d;
}

ExecutionSettings parse_execution(const JsonView& v) {
  v.expect_object({"threads", "interop_threads", "cpus", "device", "data", "distributed", "cuda_graphs"});
  ExecutionSettings e;
  if (auto d = v.find("device")) {
    const std::string text = d->as_string();
    const std::optional<DeviceChoice> device = DeviceChoice::parse(text);
    if (!device) d->fail("expected \"cpu\", \"cuda\" (every visible GPU) or \"cuda:N\", got '" + text + "'");
    e.device = *device;
  }
  e.threads = v.positive_int_or("threads", e.threads);
  e.interop_threads = v.positive_int_or("interop_threads", e.interop_threads);
  if (auto c = v.find("cpus")) e.cpus = parse_cpus(*c);
  if (auto d = v.find("data")) e.data = parse_data(*d);
  if (auto g = v.find("cuda_graphs")) {
    e.cuda_graphs = g->as_bool();
    if (e.cuda_graphs && e.device.kind == DeviceChoice::Kind::cpu)
      g->fail("CUDA graphs replay a GPU's kernels, and execution.device is cpu: set \"device\": \"cuda\" or drop cuda_graphs");
    if (e.cuda_graphs && v.find("distributed"))
      g->fail("CUDA graphs are not captured around data-parallel ranks' all-reduces: drop execution.distributed or cuda_graphs");
  }
  if (auto d = v.find("distributed")) {
    e.distributed = parse_distributed(*d);
    if (e.data.mode != DataMode::local || e.data.worker != DataWorker::pperf)
      d->fail("data-parallel ranks read the local loader: needs data mode 'local' with the pperf worker");
    if (e.distributed->spawn_local && e.distributed->cpus_per_rank > 0 && !e.cpus.empty())
      d->at("spawn_local").fail("give either execution.cpus or spawn_local.cpus_per_rank, not both");
    if (e.distributed->backend == "nccl" && e.device.kind == DeviceChoice::Kind::cpu)
      d->at("backend").fail("nccl all-reduces on CUDA devices only, and execution.device is cpu: use \"gloo\" on the CPU");
    if (e.distributed->backend == "nccl" && e.device.kind == DeviceChoice::Kind::gpu && e.distributed->spawn_local &&
        e.distributed->world_size > 1)
      d->at("backend").fail("nccl takes one GPU per rank, and these " + std::to_string(e.distributed->world_size) +
                            " ranks started here would all be on " + e.device.name() +
                            ": use \"device\": \"cuda\" (a GPU each) or \"gloo\"");
  }
  return e;
}

InstanceGroup parse_instance(const JsonView& v, const PricingSettings& pricing, const PriceTable& table) {
  v.expect_object({"type", "count", "role", "market", "usd_per_hour"});
  InstanceGroup g;
  JsonView type = v.at("type");
  g.type = type.as_string();
  g.count = v.positive_int_or("count", 1);
  if (auto r = v.find("role")) g.role = r->as_choice({"dnn", "data"});
  g.market = pricing.market;
  if (auto m = v.find("market")) g.market = read_market(*m);
  if (auto u = v.find("usd_per_hour")) g.usd_per_hour = u->as_positive_number();

  const InstanceSpec* spec = table.find(g.type);
  if (!spec)
    type.fail("unknown instance type '" + g.type + "' in price table " + table.name +
              did_you_mean(g.type, table.types()));
  if (!g.usd_per_hour && !quote(*spec, g.market))
    v.fail("price table " + table.name + " has no " + to_string(g.market) + " price for " + g.type +
           "; give usd_per_hour");
  return g;
}

/// Device "cuda" without `distributed`: one rank per GPU of the trainer groups (count x the
/// table's accelerators per instance), started here (a p4d's 8 GPUs) or joined through the
/// launcher's variables (instances of one GPU each); NCCL where this pperf has it.
std::optional<DistributedSettings> rank_per_gpu(const JsonView& v, const Configuration& c, const PriceTable& table) {
  const int64_t gpus = c.priced_gpus;
  if (gpus == 0)
    v.at("execution").at("device").fail("\"cuda\": the trainer instances have no GPU in price table " + table.name +
                                        "; name one, e.g. \"cuda:0\"");
  if (gpus == 1) return std::nullopt;
  DistributedSettings d;
  d.world_size = gpus;
  d.backend = PPERF_WITH_NCCL ? "nccl" : "gloo";
  d.spawn_local = true;
  return d;
}

}  // namespace

namespace config_detail {

Configuration parse_configuration(const JsonView& v, const PricingSettings& pricing,
                                  const PriceTable& table) {
  v.expect_object({"name", "baseline", "instances", "execution", "step_time_ms", "billable_seconds", "spot", "native"});
  if (auto n = v.find("native")) {
    n->expect_object({"execution"});
    if (!n->at("execution").raw().is_object()) n->at("execution").fail("must be an object (it is laid over the configuration's execution)");
  }
  Configuration c;
  c.pointer = v.pointer();
  c.name = v.at("name").as_string();
  if (c.name.empty()) v.at("name").fail("must not be empty");
  c.baseline = v.bool_or("baseline", false);
  JsonView instances = v.at("instances");
  for (const auto& item : instances.items()) c.instances.push_back(parse_instance(item, pricing, table));
  if (c.instances.empty()) instances.fail("needs at least one instance group");
  bool has_dnn = false;
  for (const auto& g : c.instances) has_dnn = has_dnn || g.role == "dnn";
  if (!has_dnn) instances.fail("needs an instance group with role 'dnn' (the trainer)");
  if (auto e = v.find("execution")) c.execution = parse_execution(*e);
  c.priced_gpus = priced_gpus(c.instances, table);
  if (c.execution.device.kind == DeviceChoice::Kind::every_gpu && !c.execution.distributed) c.execution.distributed = rank_per_gpu(v, c, table);
  if (c.execution.cuda_graphs && c.execution.distributed)
    v.at("execution").at("cuda_graphs").fail("CUDA graphs are not captured around data-parallel ranks' all-reduces, and \"cuda\" runs one rank per priced GPU (" +
                                             std::to_string(c.priced_gpus) + "): name one GPU (\"cuda:0\") or drop cuda_graphs");
  // As for ranks given by hand (parse_execution): each rank reads its slice with loader threads.
  if (c.execution.distributed && (c.execution.data.mode != DataMode::local || c.execution.data.worker != DataWorker::pperf))
    v.at("execution").at("device").fail("\"cuda\" runs one data-parallel rank per priced GPU (" +
                                        std::to_string(c.priced_gpus) +
                                        "), and data-parallel ranks read the local loader: needs data mode 'local' "
                                        "with the pperf worker, or one GPU (\"cuda:0\")");
  if (auto t = v.find("step_time_ms")) c.step_time_ms = t->as_positive_number();
  if (auto b = v.find("billable_seconds")) {
    c.billable_seconds = b->as_positive_number();
    if (!c.step_time_ms) b->fail("billable_seconds needs step_time_ms (a priced-only configuration)");
  }
  return c;
}

}  // namespace config_detail

namespace {

/// A finite number >= 0 (the JSON reader already refuses NaN and infinities as numbers).
double non_negative_number(const JsonView& v) {
  const double x = v.as_number();
  if (!(x >= 0) || !std::isfinite(x)) v.fail("must be a finite number >= 0, got " + v.raw().dump());
  return x;
}

/// `"link_gbps": "table"`: the data group's links together, capped by the trainers' (a side the
/// table has no figure for does not cap; the data side must have one).
void resolve_table_link(const JsonView& v, Configuration& c, const PriceTable& table) {
  DataSettings& d = c.execution.data;
  if (!d.link_from_table) return;
  const JsonView at = v.at("execution").at("data").at("link_gbps");
  std::optional<double> data_side, trainer_side;
  for (const auto& g : c.instances) {
    const InstanceSpec* spec = table.find(g.type);
    if (g.role == "data") {
      if (!spec || !spec->link_gbps)
        at.fail("the price table " + table.name + " has no link figure for " + g.type + ": give link_gbps in Gbit/s");
      data_side = data_side.value_or(0) + static_cast<double>(g.count) * *spec->link_gbps;
    } else if (spec && spec->link_gbps) {
      trainer_side = trainer_side.value_or(0) + static_cast<double>(g.count) * *spec->link_gbps;
    }
  }
  if (!data_side) at.fail("\"table\" needs a data instance group (role \"data\") whose link the table gives");
  d.link_gbps = trainer_side ? std::min(*data_side, *trainer_side) : *data_side;
}

/// The configuration's `spot{...}` and each Spot group's rate (override, else the table's for
/// the price table's region). Loads the interruption table on first need.
void resolve_spot(const JsonView& v, Configuration& c, const Config& config, std::optional<InterruptionTable>& table) {
  bool any_spot = false;
  for (const auto& g : c.instances) any_spot = any_spot || g.market == Market::spot;
  const auto settings = v.find("spot");
  if (!any_spot) {
    if (settings) settings->fail("spot settings on a configuration without a Spot instance group");
    return;
  }
  SpotSettings s;
  if (settings) {
    settings->expect_object({"interruptions_per_month", "restart_overhead_s", "checkpoint_interval_s",
                             "checkpoint_save_s", "checkpoint_restore_s", "checkpoint_dir"});
    if (auto x = settings->find("interruptions_per_month")) s.interruptions_per_month = non_negative_number(*x);
    if (auto x = settings->find("restart_overhead_s")) s.restart_overhead_s = non_negative_number(*x);
    if (auto x = settings->find("checkpoint_interval_s")) s.checkpoint_interval_s = x->as_positive_number();
    if (auto x = settings->find("checkpoint_save_s")) s.checkpoint_save_s = non_negative_number(*x);
    if (auto x = settings->find("checkpoint_restore_s")) s.checkpoint_restore_s = non_negative_number(*x);
    if (auto x = settings->find("checkpoint_dir")) {
      if (x->as_string().empty()) x->fail("must name a directory");
      s.checkpoint_dir = relative_to_config(x->as_string(), v.file());
    }
  }
  const JsonView instances = v.at("instances");
  for (size_t i = 0; i < c.instances.size(); ++i) {
    const InstanceGroup& g = c.instances[i];
    double rate = 0;
    if (g.market == Market::spot && s.interruptions_per_month) {
      rate = *s.interruptions_per_month;
    } else if (g.market == Market::spot) {
      if (!table) {
        try {
          table = load_interruption_table(config.pricing.interruptions);
        } catch (const InputError& e) {
          instances.items()[i].at("type").fail("interruption table '" + config.pricing.interruptions + "': " + e.what());
        }
      }
      const auto found = table->find(config.price_table.region, g.type);
      if (!found)
        instances.items()[i].at("type").fail("no Spot interruption rate for " + g.type + " in " + config.price_table.region +
                                             " in table " + table->name + "; give spot.interruptions_per_month");
      rate = found->interruptions_per_month;
    }
    s.group_interruptions_per_month.push_back(rate);
  }
  c.spot = s;
}

}  // namespace

const Configuration& Config::baseline() const {
  for (const auto& c : configurations)
    if (c.baseline) return c;
  return configurations.front();  // unreachable on a validated Config
}

namespace {
/// The deepest member of `v` along `path` that exists: where a refusal points.
JsonView deepest(const JsonView& v, std::initializer_list<const char*> path) {
  JsonView at = v;
  for (const char* key : path) {
    auto next = at.find(key);
    if (!next) break;
    at = *next;
  }
  return at;
}

/// Every (workload x configuration) asks only for hooks the workload has
/// (WorkloadCapabilities): refused here, naming the workload and the missing capability,
/// instead of a feature quietly degrading at run time.
void check_capabilities(const Config& config, const WorkloadRegistry& registry, const JsonView& configurations) {
  for (const auto& w : config.workloads) {
    const WorkloadCapabilities& can = registry.find(w.name)->capabilities;
    for (size_t i = 0; i < config.configurations.size(); ++i) {
      const Configuration& c = config.configurations[i];
      const JsonView item = configurations.items()[i];
      const std::string lacks = "workload '" + w.name + "' lacks the capability ";
      if (c.execution.distributed && !can.data_parallel && !can.steps_as_own_ranks)
        deepest(item, {"execution", "distributed"}).fail(lacks + "data_parallel (it exposes no parameters to all-reduce): it cannot train as several ranks");
      if (c.execution.data.mode == DataMode::service && !can.data_workers)
        deepest(item, {"execution", "data", "mode"}).fail(lacks + "data_workers (no input pipeline a data worker can run): use data.mode \"local\"");
      if (const std::string& wire = c.execution.data.wire; !wire.empty() && can.data_workers) {
        const std::vector<std::string> exact = exact_wires(can);
        if (std::find(exact.begin(), exact.end(), wire) == exact.end()) {
          std::string have;
          for (const auto& e : exact) have += (have.empty() ? "" : ", ") + e;
          deepest(item, {"execution", "data", "wire"}).fail("workload '" + w.name + "' cannot send its batches as " + wire +
                                                             " exactly (its wires: " + have + ")");
        }
      }
      if (c.execution.cuda_graphs && !can.static_shapes)
        deepest(item, {"execution", "cuda_graphs"}).fail(lacks + "static_shapes (its batches may change shape, or its step reads values on the host), so its step cannot be captured as a CUDA graph: drop cuda_graphs");
      if (c.spot && !(c.spot->checkpoint_save_s && c.spot->checkpoint_restore_s) && !can.checkpoint)
        deepest(item, {"spot"}).fail(lacks + "checkpoint (it cannot save its training state), so Spot's checkpoint cost cannot be measured: give spot.checkpoint_save_s and spot.checkpoint_restore_s");
    }
  }
}

/// The price table `pricing` names; a table that does not load is refused at the config's
/// `table` (or `region`) key, with the table's own line as the reason.
PriceTable load_table(const JsonView& pricing, const PricingSettings& settings) {
  try {
    return load_price_table(settings.table, settings.region);
  } catch (const InputError& e) {
    const bool region_fault = e.pointer() == "/regions" || e.pointer() == "/region";
    (region_fault && pricing.has("region") ? pricing.at("region") : pricing.at("table"))
        .fail("price table '" + settings.table + "': " + e.what());
  }
}

/// `configurations` into config.configurations (Spot rates and "table" links resolved), with
/// exactly one baseline (a sweep's one configuration is its baseline) and step_time_ms given on
/// every configuration (priced-only) or on none.
void parse_configurations(const JsonView& configurations, bool sweep, Config& config) {
  std::set<std::string> names;
  std::optional<InterruptionTable> interruptions;
  for (const auto& item : configurations.items()) {
    Configuration c = parse_configuration(item, config.pricing, config.price_table);
    resolve_spot(item, c, config, interruptions);
    resolve_table_link(item, c, config.price_table);
    if (!names.insert(c.name).second) item.at("name").fail("duplicate configuration name '" + c.name + "'");
    config.configurations.push_back(std::move(c));
  }
  if (config.configurations.empty()) configurations.fail("needs at least one configuration");
  size_t baselines = 0, priced = 0;
  for (const auto& c : config.configurations) {
    baselines += c.baseline;
    priced += c.step_time_ms.has_value();
  }
  if (baselines == 0 && sweep && config.configurations.size() == 1) config.configurations[0].baseline = baselines = 1;
  if (baselines == 0) configurations.fail("no configuration has \"baseline\": true (exactly one must)");
  if (baselines > 1) {
    for (size_t i = 0, seen = 0; i < config.configurations.size(); ++i)
      if (config.configurations[i].baseline && ++seen == 2)
        configurations.items()[i].at("baseline").fail("a second baseline (exactly one configuration may be the baseline)");
  }
  config.priced_only = priced == config.configurations.size();
  if (priced != 0 && !config.priced_only) {
    for (size_t i = 0; i < config.configurations.size(); ++i)
      if (!config.configurations[i].step_time_ms)
        configurations.items()[i].fail("missing step_time_ms: give it on every configuration or on none");
  }
}

/// `workloads` into config.workloads (each entry's `native` size under `native`), with the sizes
/// as written and as native beside them.
void parse_workloads(const JsonView& workloads, const WorkloadRegistry& registry, bool native, Config& config) {
  for (const auto& item : workloads.items()) {
    const std::optional<JsonView> real = item.find("native");
    std::vector<PathParam> written_paths, native_paths;
    WorkloadSpec written = parse_workload(item, registry, config.priced_only, config.seed, written_paths);
    std::optional<WorkloadSpec> real_spec;
    if (real) real_spec = parse_workload(item, registry, config.priced_only, config.seed, native_paths, real);
    config.workloads_as_written.push_back(written);
    config.native_workloads.push_back(real_spec);
    const bool use_native = native && real_spec;
    config.workloads.push_back(use_native ? *real_spec : written);
    config.path_params.push_back(use_native ? native_paths : written_paths);
    const WorkloadDescriptor* descriptor = registry.find(written.name);  // none: a priced-only config's label
    config.default_wires.push_back(default_wire(descriptor ? descriptor->capabilities : WorkloadCapabilities{}));
  }
  if (config.workloads.empty()) workloads.fail("needs at least one workload");
  if (config.priced_only && config.workloads.size() != 1)
    workloads.fail("a priced-only config (step_time_ms given) describes exactly one workload");
}
}  // namespace

Config load_config(const std::string& arg, const WorkloadRegistry& registry, bool native) {
  const std::string path = find_config(arg);
  const nlohmann::json doc = read_json_file(path);
  JsonView root(doc, path);
  root.expect_object({"$schema", "name", "description", "seed", "pricing", "workloads", "measure",
                      "configurations", "steps_to_train", "sweep", "scaling"});
  root.string_or("$schema", "");  // for editors (schemas/config.schema.json); must be a string
  Config config;
  config.path = path;
  config.sha256 = sha256_hex(read_text_file(path));
  config.name = root.at("name").as_string();
  root.string_or("description", "");
  if (auto s = root.find("seed")) config.seed = static_cast<uint64_t>(s->as_non_negative_int());

  JsonView pricing = root.at("pricing");
  config.pricing = parse_pricing(pricing);
  config.price_table = load_table(pricing, config.pricing);
  if (auto m = root.find("measure")) config.measure = parse_measure(*m);
  if (auto s = root.find("steps_to_train")) config.steps_to_train = s->as_positive_int();

  // On the real instances each configuration's `native.execution` is laid over its `execution`
  // (a JSON merge patch): parsed from that document under --native, and checked either way.
  bool any_native = false;
  const nlohmann::json real_doc = with_native_applied(doc, any_native);
  const JsonView real_root(real_doc, path);
  if (any_native && !native) check_native_overlay(root, real_root, config);
  JsonView configurations = (native ? real_root : root).at("configurations");
  parse_configurations(configurations, root.has("sweep") || root.has("scaling"), config);
  parse_workloads(root.at("workloads"), registry, native, config);
  if (!config.priced_only) check_capabilities(config, registry, configurations);
  if (auto sweep = root.find("sweep")) expand_sweep(*sweep, config, registry);
  if (auto scaling = root.find("scaling")) expand_scaling(*scaling, config);
  config.native = native;
  if (native) {
    // On the real instances the emulation's CPU pinning means nothing: the instance is the bound.
    for (auto& c : config.configurations) {
      c.execution.cpus.clear();
      c.execution.data.spawn_local_cpus.clear();
    }
  }
  return config;
}
PricingInputs pricing_inputs(const Config& config) {
  PricingInputs inputs;
  inputs.table = config.price_table;
  inputs.discount_pct = config.pricing.discount_pct;
  inputs.steps_to_train = config.steps_to_train;
  inputs.seed = config.seed;
  inputs.decision = config.measure.decision;
  for (const auto& c : config.configurations) inputs.configurations[c.name] = {c.instances, c.billable_seconds, c.spot};
  return inputs;
}

}  // namespace pperf
