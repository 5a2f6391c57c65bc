#pragma once
// mnist_heavy: the seed's MNIST network with a deliberately heavy per-sample input pipeline
// (normalise + 11x11 Gaussian blur with a random sigma per sample), on Fashion-MNIST.
#include "src/core/workload_registry.h"

namespace pperf {
WorkloadDescriptor mnist_heavy_descriptor();
}  // namespace pperf
