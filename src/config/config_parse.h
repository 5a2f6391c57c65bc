#pragma once
// What config.cpp, sweep.cpp and native_overlay.cpp share in parsing a config. Internal to
// src/config: config.h is the interface.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "src/config/config.h"

namespace pperf {

class JsonView;

namespace config_detail {

/// "a, b, c".
std::string join_names(const std::vector<std::string>& names);

/// A CPU list. Whether those CPUs exist here is the plan's question, not validity's: a config
/// written for a 96-CPU instance is valid on a laptop.
std::vector<int> parse_cpus(const JsonView& v);

/// The accelerators of the trainer groups (role "dnn") by the price table: a fraction of a GPU
/// (g6f) counts as one device to run a rank on.
int64_t priced_gpus(const std::vector<InstanceGroup>& groups, const PriceTable& table);

/// One entry of `configurations`, checked against the price table (its Spot settings and a
/// "table" link are resolved by the caller).
Configuration parse_configuration(const JsonView& v, const PricingSettings& pricing, const PriceTable& table);

/// The points of `sweep` as configurations (replacing config.configurations), the first the
/// baseline; config.sweep set. Every refusal names its value's JSON pointer (sweep.cpp).
void expand_sweep(const JsonView& sweep, Config& config, const WorkloadRegistry& registry);

/// The points of `scaling` as configurations (replacing config.configurations: one per trainer
/// instance count, the first the baseline); config.scaling set (scaling.cpp).
void expand_scaling(const JsonView& scaling, Config& config);

/// The config document with each configuration's `native.execution` laid over its `execution`
/// (a JSON merge patch) and `native` removed: what runs on the real instances. `any` says whether
/// some configuration had one (native_overlay.cpp).
nlohmann::json with_native_applied(const nlohmann::json& doc, bool& any);

/// Each configuration of `root` and of `real_root` (the document with_native_applied made) parses,
/// so a `native` overlay is checked even when the emulation runs; a mistake the overlay makes
/// says so.
void check_native_overlay(const JsonView& root, const JsonView& real_root, const Config& config);

}  // namespace config_detail
}  // namespace pperf
