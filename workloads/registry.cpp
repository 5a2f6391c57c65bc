#include "workloads/registry.h"

#include <stdexcept>

namespace pperf {

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

void WorkloadRegistry::add(WorkloadDescriptor descriptor) {
  if (find(descriptor.name)) throw std::logic_error("workload registered twice: " + descriptor.name);
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

}  // namespace pperf
