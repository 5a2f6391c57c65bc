#pragma once
// resnet50_augment: ResNet50 (torchvision v1.5 layout) fed by a deliberately CPU-heavy
// per-sample augmentation chain (seed 000 ex.1): dilation, Gaussian blur, rescale, random flip,
// rotation and zoom, all in plain C++ (workloads/common/augment.h).
#include "src/core/workload_registry.h"

namespace pperf {
WorkloadDescriptor resnet50_augment_descriptor();
}  // namespace pperf
