#include "src/launch/sagemaker_container.h"

namespace pperf {

std::vector<std::string> sagemaker_framework_entrypoint() {
  // Within SageMaker's 256 characters per item. `kill -0` tells a wait the trap cut short (the
  // entry still running: wait again) from the entry's end.
  return {"/bin/bash", "-c",
          "trap '' TERM; bash start_with_right_hostname.sh train & c=$!; "
          "trap 'trap \"\" TERM; kill -TERM 0' TERM; "
          "wait $c; s=$?; while kill -0 $c 2>/dev/null; do wait $c; s=$?; done; exit $s"};
}

std::vector<std::pair<std::string, std::string>> sagemaker_metric_definitions(const std::vector<std::string>& configurations) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : configurations) {
    std::string escaped;
    for (const char ch : c) {
      if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) escaped += '\\';
      escaped += ch;
    }
    // {:.4g}: digits, a point, an exponent (1.567e+04).
    out.emplace_back("pperf:step_ms:" + c, " on " + escaped + ": mean ([0-9.e+-]+) ms/step");
  }
  return out;
}

}  // namespace pperf
