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

}  // namespace pperf
