#pragma once
// bert_classification: a BERT encoder + pooler + 2-class head (seed 004's job), AdamW,
// cross-entropy; synthetic token ids or a JSONL file tokenized with WordPiece.
#include "src/core/workload_registry.h"

namespace pperf {
WorkloadDescriptor bert_classification_descriptor();
}  // namespace pperf
