#pragma once
// vit_synthetic: seed 001's Vision Transformer (timm VisionTransformer defaults = ViT-B/16)
// trained with Adam and cross-entropy on N(0, 1) images generated in the input pipeline,
// optionally under bf16 CPU autocast.
#include "src/core/workload_registry.h"

namespace pperf {
WorkloadDescriptor vit_synthetic_descriptor();
}  // namespace pperf
