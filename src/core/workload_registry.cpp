#include "src/core/workload_registry.h"

#include <algorithm>
#include <stdexcept>

#include "src/core/json_view.h"

namespace pperf {

nlohmann::json to_json(const ModelInfo& m) {
  return {{"params", m.params}, {"flops_per_sample", m.flops_per_sample}, {"precision", m.precision}};
}

nlohmann::json to_json(const DataInfo& d) { return {{"source", d.source}, {"path", d.path}, {"samples", d.samples}}; }

ModelInfo read_model_info(const JsonView& v) {
  return ModelInfo{v.at("params").as_non_negative_int(), v.at("flops_per_sample").as_number(), v.at("precision").as_string(), {}};
}

DataInfo read_data_info(const JsonView& v) {
  return DataInfo{v.at("source").as_string(), v.at("path").as_string(), v.at("samples").as_non_negative_int()};
}

std::vector<std::string> capability_names(const WorkloadCapabilities& c) {
  std::vector<std::string> out;
  if (c.data_parallel) out.push_back("data_parallel");
  if (c.checkpoint) out.push_back("checkpoint");
  if (c.data_workers) out.push_back("data_workers");
  if (c.model_flops) out.push_back("model_flops");
  if (c.steps_as_own_ranks) out.push_back("steps_as_own_ranks");
  if (c.owns_device) out.push_back("owns_device");
  for (const auto& wire : c.wires) out.push_back("wire_" + wire);
  if (c.static_shapes) out.push_back("static_shapes");
  return out;
}

const std::vector<std::string>& wire_formats() {
  static const std::vector<std::string> formats = {"uint8", "bf16", "float32"};
  return formats;
}

std::vector<std::string> exact_wires(const WorkloadCapabilities& c) {
  std::vector<std::string> out;
  for (const auto& wire : wire_formats())
    if ((wire == "float32" && c.data_workers) || std::find(c.wires.begin(), c.wires.end(), wire) != c.wires.end())
      out.push_back(wire);
  return out;
}

std::string default_wire(const WorkloadCapabilities& c) {
  const std::vector<std::string> wires = exact_wires(c);
  return wires.empty() ? "float32" : wires.front();
}

std::vector<TensorDecl> layout_on_wire(std::vector<TensorDecl> layout, const std::string& wire) {
  for (auto& t : layout)
    if (t.name == "inputs") t.dtype = wire == "bf16" ? "bfloat16" : wire;
  return layout;
}

int64_t bytes_per_sample(const std::vector<TensorDecl>& layout) {
  int64_t total = 0;
  for (const auto& t : layout) {
    int64_t n = t.dtype == "uint8" ? 1 : t.dtype == "bfloat16" ? 2 : t.dtype == "int64" ? 8 : 4;
    for (int64_t d : t.shape) n *= d;
    total += n;
  }
  return total;
}

const std::vector<std::string>& param_types() {
  static const std::vector<std::string> types = {"string", "path", "number", "integer", "bool", "integer_list", "object"};
  return types;
}

bool param_value_has_type(const nlohmann::json& value, const std::string& type) {
  if (type == "string" || type == "path") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return value.is_number_integer();
  if (type == "bool") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "integer_list")
    return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_number_integer(); });
  return false;
}

const nlohmann::json& WorkloadSpec::param(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end())
    throw std::logic_error("workload " + name + " read param '" + key + "', which its spec does not hold");
  return *it;
}

std::string WorkloadSpec::string_param(const std::string& key) const { return param(key).get<std::string>(); }
double WorkloadSpec::number_param(const std::string& key) const { return param(key).get<double>(); }
int64_t WorkloadSpec::int_param(const std::string& key) const { return param(key).get<int64_t>(); }

const PresetSpec* WorkloadDescriptor::find_preset(const std::string& preset) const {
  for (const auto& p : presets)
    if (p.name == preset) return &p;
  return nullptr;
}

std::vector<std::string> WorkloadDescriptor::preset_names() const {
  std::vector<std::string> out;
  for (const auto& p : presets) out.push_back(p.name);
  return out;
}

const ParamSpec* WorkloadDescriptor::find_param(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

void WorkloadRegistry::add(WorkloadDescriptor descriptor) {
  const std::string& name = descriptor.name;
  if (find(name)) throw std::logic_error("workload registered twice: " + name);
  if (descriptor.presets.empty()) throw std::logic_error("workload " + name + " has no preset");
  for (const auto& p : descriptor.params) {
    const auto& types = param_types();
    if (std::find(types.begin(), types.end(), p.type) == types.end())
      throw std::logic_error("workload " + name + ": param '" + p.name + "' has unknown type '" + p.type + "'");
    if (!param_value_has_type(p.default_value, p.type))
      throw std::logic_error("workload " + name + ": default of param '" + p.name + "' is not a " + p.type);
  }
  descriptors_.push_back(std::move(descriptor));
}

const WorkloadDescriptor* WorkloadRegistry::find(const std::string& name) const {
  for (const auto& d : descriptors_)
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<std::string> WorkloadRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& d : descriptors_) out.push_back(d.name);
  return out;
}

WorkloadSpec make_workload_spec(const WorkloadDescriptor& descriptor, const std::string& preset,
                                int64_t batch_size, const nlohmann::json& overrides, uint64_t seed) {
  WorkloadSpec spec;
  spec.name = descriptor.name;
  const PresetSpec* p = preset.empty() ? &descriptor.presets.front() : descriptor.find_preset(preset);
  if (!p) throw std::logic_error("workload " + descriptor.name + " has no preset '" + preset + "'");
  spec.preset = p->name;
  spec.batch_size = batch_size > 0 ? batch_size : p->default_batch_size;
  for (const auto& param : descriptor.params) spec.params[param.name] = param.default_value;
  for (const auto& [key, value] : overrides.items()) {
    if (!descriptor.find_param(key))
      throw std::logic_error("workload " + descriptor.name + " has no param '" + key + "'");
    spec.params[key] = value;
  }
  spec.seed = seed;
  spec.owns_device = descriptor.capabilities.owns_device;
  return spec;
}

std::string describe_tensor(const TensorDecl& t) {
  std::string out = t.name + " " + t.dtype + "[";
  for (size_t i = 0; i < t.shape.size(); ++i) out += (i ? "," : "") + std::to_string(t.shape[i]);
  return out + "]";
}

std::string layout_mismatch(const std::vector<TensorDecl>& needed, const std::vector<TensorDecl>& served) {
  auto find = [](const std::vector<TensorDecl>& in, const std::string& name) -> const TensorDecl* {
    for (const auto& t : in)
      if (t.name == name) return &t;
    return nullptr;
  };
  auto shape_of = [](const TensorDecl& t) { return describe_tensor(t).substr(t.name.size() + 1); };
  for (const auto& n : needed) {
    const TensorDecl* s = find(served, n.name);
    if (!s) return n.name + ": the worker does not serve it (the model takes " + shape_of(n) + " per sample)";
    if (!(*s == n))
      return n.name + ": the worker serves " + shape_of(*s) + " per sample, the model takes " + shape_of(n);
  }
  for (const auto& s : served)
    if (!find(needed, s.name)) return s.name + ": the worker serves it, the model takes no such tensor";
  return "";
}

}  // namespace pperf
