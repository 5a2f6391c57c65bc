#pragma once
// JSON documents as the YAML SkyPilot and Kubernetes read (yaml-cpp's emitter): block style,
// keys in the documents' order, multi-line strings as literal blocks (a task's `run` script).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pperf {

/// `documents` as one YAML stream, each document after a `---` line.
std::string yaml_documents(const std::vector<nlohmann::ordered_json>& documents);

}  // namespace pperf
