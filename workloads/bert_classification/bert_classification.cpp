#include "workloads/bert_classification/bert_classification.h"

#include <cmath>
#include <fstream>
#include <random>

#include "src/core/input_error.h"
#include "workloads/bert_classification/wordpiece.h"
#include "workloads/workload.h"
#include "workloads/common/foreach_optim.h"

namespace pperf {

namespace {

constexpr int64_t kClasses = 2;

struct BertShape {
  int64_t vocab, hidden, layers, heads, intermediate, max_positions;
};

BertShape preset_shape(const std::string& preset) {
  if (preset == "tiny") return {30522, 128, 2, 2, 512, 512};
  return {30522, 768, 12, 12, 3072, 512};  // base
}

struct SelfAttentionImpl : torch::nn::Module {
  SelfAttentionImpl(const BertShape& s)
      : heads(s.heads),
        query(register_module("query", torch::nn::Linear(s.hidden, s.hidden))),
        key(register_module("key", torch::nn::Linear(s.hidden, s.hidden))),
        value(register_module("value", torch::nn::Linear(s.hidden, s.hidden))),
        dense(register_module("dense", torch::nn::Linear(s.hidden, s.hidden))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden}).eps(1e-12)))),
        attention_dropout(register_module("attention_dropout", torch::nn::Dropout(0.1))),
        dropout(register_module("dropout", torch::nn::Dropout(0.1))) {}

  /// x [B, S, H]; additive_mask [B, 1, 1, S] (0 for tokens, large negative for padding).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& additive_mask) {
    const int64_t b = x.size(0), s = x.size(1), h = x.size(2), d = h / heads;
    auto split = [&](const torch::Tensor& t) { return t.view({b, s, heads, d}).transpose(1, 2); };
    torch::Tensor q = split(query(x)), k = split(key(x)), v = split(value(x));
    torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(d)) + additive_mask;
    torch::Tensor context = torch::matmul(attention_dropout(torch::softmax(scores, -1)), v);
    context = context.transpose(1, 2).reshape({b, s, h});
    return norm(dropout(dense(context)) + x);
  }

  int64_t heads;
  torch::nn::Linear query, key, value, dense;
  torch::nn::LayerNorm norm;
  torch::nn::Dropout attention_dropout, dropout;
};
TORCH_MODULE(SelfAttention);

struct EncoderLayerImpl : torch::nn::Module {
  EncoderLayerImpl(const BertShape& s)
      : attention(register_module("attention", SelfAttention(s))),
        intermediate(register_module("intermediate", torch::nn::Linear(s.hidden, s.intermediate))),
        output(register_module("output", torch::nn::Linear(s.intermediate, s.hidden))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden}).eps(1e-12)))),
        dropout(register_module("dropout", torch::nn::Dropout(0.1))) {}

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& additive_mask) {
    torch::Tensor a = attention(x, additive_mask);
    return norm(dropout(output(torch::gelu(intermediate(a)))) + a);
  }

  SelfAttention attention;
  torch::nn::Linear intermediate, output;
  torch::nn::LayerNorm norm;
  torch::nn::Dropout dropout;
};
TORCH_MODULE(EncoderLayer);

struct BertClassifierImpl : torch::nn::Module {
  explicit BertClassifierImpl(const BertShape& s)
      : shape(s),
        word(register_module("word", torch::nn::Embedding(s.vocab, s.hidden))),
        position(register_module("position", torch::nn::Embedding(s.max_positions, s.hidden))),
        token_type(register_module("token_type", torch::nn::Embedding(2, s.hidden))),
        embedding_norm(register_module("embedding_norm",
                                       torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden}).eps(1e-12)))),
        embedding_dropout(register_module("embedding_dropout", torch::nn::Dropout(0.1))),
        layers(register_module("layers", torch::nn::ModuleList())),
        pooler(register_module("pooler", torch::nn::Linear(s.hidden, s.hidden))),
        classifier_dropout(register_module("classifier_dropout", torch::nn::Dropout(0.1))),
        classifier(register_module("classifier", torch::nn::Linear(s.hidden, kClasses))) {
    for (int64_t i = 0; i < s.layers; ++i) layers->push_back(EncoderLayer(s));
  }

  /// ids, mask [B, S] int64 -> logits [B, 2]. Token types are all 0 (single-segment input).
  torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& mask) {
    const int64_t s = ids.size(1);
    torch::Tensor positions = torch::arange(s, torch::TensorOptions(torch::kLong).device(ids.device())).unsqueeze(0);
    torch::Tensor x = word(ids) + position(positions) + token_type(torch::zeros_like(ids));
    x = embedding_dropout(embedding_norm(x));
    torch::Tensor additive = (1.0 - mask.to(torch::kFloat)).view({ids.size(0), 1, 1, s}) * -10000.0;
    for (const auto& layer : *layers) x = layer->as<EncoderLayer>()->forward(x, additive);
    torch::Tensor pooled = torch::tanh(pooler(x.select(1, 0)));
    return classifier(classifier_dropout(pooled));
  }

  /// 2 x multiply-adds at sequence length s: q/k/v/output projections, attention scores and
  /// weighted sum, the feed-forward pair, pooler and head. Embedding lookups, LayerNorm,
  /// softmax and GELU are not counted.
  double forward_flops(int64_t s) const {
    const double h = shape.hidden, i = shape.intermediate, n = static_cast<double>(s);
    const double per_layer = 4 * n * h * h + 2 * n * n * h + 2 * n * h * i;
    return 2 * (shape.layers * per_layer + h * h + h * kClasses);
  }

  BertShape shape;
  torch::nn::Embedding word, position, token_type;
  torch::nn::LayerNorm embedding_norm;
  torch::nn::Dropout embedding_dropout;
  torch::nn::ModuleList layers;
  torch::nn::Linear pooler;
  torch::nn::Dropout classifier_dropout;
  torch::nn::Linear classifier;
};
TORCH_MODULE(BertClassifier);

/// Token rows: `seq_len` ids each, plus labels. Batch inputs are [B, 2, S] int64: ids, mask.
struct TokenSet {
  std::vector<int64_t> ids;  // n x seq_len
  std::vector<int64_t> labels;
  int64_t pad_id = 0;
  DataInfo info;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

std::shared_ptr<const TokenSet> read_jsonl(const std::string& path, const WordPieceTokenizer& tokenizer,
                                           int64_t seq_len) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open JSONL file");
  auto set = std::make_shared<TokenSet>();
  set->pad_id = tokenizer.pad_id();
  int64_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(line_number);
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) throw InputError(where, "", "not a JSON object");
    if (!record.contains("content") || !record["content"].is_string())
      throw InputError(where, "/content", "missing or not a string");
    if (!record.contains("label") || !record["label"].is_number_integer() || record["label"].get<int64_t>() < 0 ||
        record["label"].get<int64_t>() >= kClasses)
      throw InputError(where, "/label", "must be an integer class in [0, 2)");
    const auto ids = tokenizer.encode(record["content"].get<std::string>(), seq_len);
    set->ids.insert(set->ids.end(), ids.begin(), ids.end());
    set->labels.push_back(record["label"].get<int64_t>());
  }
  if (set->labels.empty()) throw InputError(path, "", "no records");
  set->info = {"jsonl", path, set->size()};
  return set;
}

class BertPipeline : public InputPipeline {
 public:
  BertPipeline(std::shared_ptr<const TokenSet> data, int64_t vocab, int64_t batch_size, int64_t seq_len, uint64_t seed)
      : data_(std::move(data)), vocab_(vocab), batch_size_(batch_size), seq_len_(seq_len), seed_(seed) {}

  Batch make_batch(int64_t index) const override {
    Batch batch;
    batch.index = index;
    batch.inputs = torch::empty({batch_size_, 2, seq_len_}, torch::kLong);
    batch.targets = torch::empty({batch_size_}, torch::kLong);
    int64_t* in = batch.inputs.data_ptr<int64_t>();
    int64_t* targets = batch.targets.data_ptr<int64_t>();
    std::mt19937_64 rng(batch_seed(seed_, index));
    // Synthetic ids avoid the first 1000 entries, where BERT vocabularies keep special tokens.
    std::uniform_int_distribution<int64_t> token(std::min<int64_t>(1000, vocab_ - 1), vocab_ - 1);
    for (int64_t i = 0; i < batch_size_; ++i) {
      int64_t* ids = in + i * 2 * seq_len_;
      int64_t* mask = ids + seq_len_;
      if (data_) {
        const int64_t row = sample_position(index, batch_size_, i, data_->size());
        std::copy_n(data_->ids.data() + row * seq_len_, seq_len_, ids);
        for (int64_t t = 0; t < seq_len_; ++t) mask[t] = ids[t] != data_->pad_id;
        targets[i] = data_->labels[row];
      } else {
        for (int64_t t = 0; t < seq_len_; ++t) ids[t] = token(rng), mask[t] = 1;
        targets[i] = sample_position(index, batch_size_, i, kClasses);
      }
    }
    return batch;
  }

  DataInfo data_info() const override { return data_ ? data_->info : DataInfo{"synthetic", "", 0}; }

 private:
  std::shared_ptr<const TokenSet> data_;  // null: synthetic ids
  int64_t vocab_, batch_size_, seq_len_;
  uint64_t seed_;
};

int64_t checked_seq_len(const WorkloadSpec& spec) {
  const int64_t seq_len = spec.int_param("seq_len");
  if (seq_len < 2 || seq_len > preset_shape(spec.preset).max_positions)
    throw InputError("params.seq_len", "", "must be in [2, " + std::to_string(preset_shape(spec.preset).max_positions) + "]");
  return seq_len;
}

class BertClassification : public Workload {
 public:
  explicit BertClassification(const WorkloadSpec& spec)
      : seq_len_(checked_seq_len(spec)),
        net_(on_device((torch::manual_seed(spec.seed), BertClassifier(preset_shape(spec.preset))), spec)),
        optimizer_(net_->parameters(),
                   torch::optim::AdamWOptions(spec.number_param("lr")).weight_decay(0.01)) {
    net_->train();
  }

  std::vector<torch::Tensor> parameters() const override { return net_->parameters(); }
  std::vector<torch::Tensor> buffers() const override { return net_->buffers(); }

  ModelInfo model_info() const override {
    return {count_parameters(*net_), 3 * net_->forward_flops(seq_len_), "fp32"};
  }

  bool save_state(torch::serialize::OutputArchive& archive) override {
    save_module_and_optimizer(archive, *net_, optimizer_);
    return true;
  }
  void load_state(torch::serialize::InputArchive& archive) override { load_module_and_optimizer(archive, *net_, optimizer_); }
  double train_step(const Batch& batch) override {
    optimizer_.zero_grad();
    torch::Tensor logits = net_->forward(batch.inputs.select(1, 0), batch.inputs.select(1, 1));
    torch::Tensor loss = torch::cross_entropy_loss(logits, batch.targets);
    loss.backward();
    optimizer_.step();
    return loss.item<double>();
  }

 private:
  int64_t seq_len_;
  BertClassifier net_;
  ForeachAdamW optimizer_;
};

}  // namespace

WorkloadDescriptor bert_classification_descriptor() {
  WorkloadDescriptor d;
  d.name = "bert_classification";
  d.description =
      "Seed 004: BERT encoder + pooler + 2-class head (LayerNorm eps 1e-12, GELU, dropout 0.1), AdamW "
      "(weight decay 0.01), cross-entropy; synthetic token ids, or a JSONL file of {\"content\", \"label\"} "
      "records tokenized with WordPiece (lower-cased) over a vocab file. Batch inputs are [B, 2, seq_len] "
      "int64: token ids, attention mask";
  d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/true, /*data_workers=*/true, /*model_flops=*/true};
  d.presets = {{"base", "BERT-base: vocab 30522, hidden 768, 12 layers, 12 heads, intermediate 3072, "
                        "512 positions; 109,482,240 + 1,538 head params", 16},
               {"tiny", "hidden 128, 2 layers, 2 heads, intermediate 512, vocab 30522 (4,386,178 params), for CI", 16}};
  d.params = {
      {"seq_len", "integer", 128, "tokens per sample, [CLS] and [SEP] included", {}},
      {"data", "string", "synthetic", "synthetic (random ids, labelled so in results) or jsonl", {"synthetic", "jsonl"}},
      {"jsonl", "path", "", "JSONL file of {\"content\": text, \"label\": 0|1} lines (data: jsonl)", {}},
      {"vocab", "path", "", "WordPiece vocab file, one token per line (data: jsonl)", {}},
      {"lr", "number", 2e-5, "AdamW learning rate", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<BertClassification>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec& spec) -> std::shared_ptr<InputPipeline> {
    const int64_t seq_len = checked_seq_len(spec);
    const BertShape shape = preset_shape(spec.preset);
    std::shared_ptr<const TokenSet> data;
    if (spec.string_param("data") == "jsonl") {
      const WordPieceTokenizer tokenizer = WordPieceTokenizer::from_file(spec.string_param("vocab"));
      if (tokenizer.vocab_size() > shape.vocab)
        throw InputError(spec.string_param("vocab"), "",
                         "vocab has more tokens than the model's embedding (" + std::to_string(shape.vocab) + ")");
      data = read_jsonl(spec.string_param("jsonl"), tokenizer, seq_len);
    }
    return std::make_shared<BertPipeline>(std::move(data), shape.vocab, spec.batch_size, seq_len, spec.seed);
  };
  d.batch_layout = [](const WorkloadSpec& spec) {
    return std::vector<TensorDecl>{{"inputs", "int64", {2, checked_seq_len(spec)}}, {"targets", "int64", {}}};
  };
  return d;
}

}  // namespace pperf
