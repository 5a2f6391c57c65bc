#include <gtest/gtest.h>
#include <torch/torch.h>

#include "src/core/input_error.h"
#include "test_helpers.h"
#include "workloads/bert_classification/wordpiece.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
const WorkloadDescriptor& bert() { return *builtin_workloads().find("bert_classification"); }

WorkloadSpec spec(const std::string& preset, int64_t batch, nlohmann::json overrides = nlohmann::json::object()) {
  return make_workload_spec(bert(), preset, batch, overrides);
}

// Encoder + pooler params of a BERT with these sizes, counted layer by layer.
int64_t bert_params(int64_t vocab, int64_t h, int64_t layers, int64_t inter, int64_t positions) {
  const int64_t embeddings = vocab * h + positions * h + 2 * h + 2 * h;  // + LayerNorm
  const int64_t attention = 4 * (h * h + h) + 2 * h;
  const int64_t feed_forward = (h * inter + inter) + (inter * h + h) + 2 * h;
  const int64_t pooler = h * h + h;
  return embeddings + layers * (attention + feed_forward) + pooler;
}

const std::vector<std::string> kVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "brown", "fox",
                                         "jump", "##s", "##ed", "over", "lazy", "dog", ".", "!", "un",
                                         "##believ", "##able", ",", "a"};
}  // namespace

TEST(Bert, ParamCountsAreExact) {
  EXPECT_EQ(bert_params(30522, 768, 12, 3072, 512), 109482240);
  EXPECT_EQ(bert().make_workload(spec("base", 1))->model_info().params, 109482240 + 1538);
  EXPECT_EQ(bert().make_workload(spec("tiny", 1))->model_info().params,
            bert_params(30522, 128, 2, 512, 512) + 128 * 2 + 2);
}

TEST(Bert, FlopsPerSampleFollowTheFormula) {
  const double s = 128, h = 128, i = 512;
  const double forward = 2 * (2 * (4 * s * h * h + 2 * s * s * h + 2 * s * h * i) + h * h + h * 2);
  EXPECT_DOUBLE_EQ(bert().make_workload(spec("tiny", 1))->model_info().flops_per_sample, 3 * forward);
}

TEST(WordPiece, SplitsLowerCasesAndPads) {
  WordPieceTokenizer t(kVocab);
  EXPECT_EQ(t.basic_tokenize("The quick, brown FOX!"),
            (std::vector<std::string>{"the", "quick", ",", "brown", "fox", "!"}));
  EXPECT_EQ(t.wordpiece("jumps"), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(t.wordpiece("unbelievable"), (std::vector<int64_t>{16, 17, 18}));
  EXPECT_EQ(t.wordpiece("zebra"), (std::vector<int64_t>{1}));
  EXPECT_EQ(t.wordpiece("jumpz"), (std::vector<int64_t>{1})) << "a word not fully covered is [UNK]";
  EXPECT_EQ(t.wordpiece(std::string(101, 'a')), (std::vector<int64_t>{1}));
  // [CLS] the quick brown fox jump ##ed over the lazy dog . [SEP] [PAD] [PAD]
  EXPECT_EQ(t.encode("The quick brown fox jumped over the lazy dog.", 15),
            (std::vector<int64_t>{2, 4, 5, 6, 7, 8, 10, 11, 4, 12, 13, 14, 3, 0, 0}));
  // Truncation keeps [SEP] last.
  EXPECT_EQ(t.encode("the quick brown fox", 4), (std::vector<int64_t>{2, 4, 5, 3}));
  EXPECT_EQ(t.encode("", 4), (std::vector<int64_t>{2, 3, 0, 0}));
}

TEST(WordPiece, BadVocabNamesTheFile) {
  pperf::testing::TempDir dir;
  const std::string path = dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\nthe\n");
  try {
    WordPieceTokenizer::from_file(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": vocab has no [SEP] token");
  }
  EXPECT_THROW(WordPieceTokenizer::from_file(dir.path() + "/none.txt"), InputError);
}

TEST(Bert, JsonlRecordsAreTokenizedIntoIdsAndMask) {
  pperf::testing::TempDir dir;
  std::string vocab;
  for (const auto& t : kVocab) vocab += t + "\n";
  const std::string vocab_path = dir.write("vocab.txt", vocab);
  const std::string jsonl = dir.write("data.jsonl", "{\"content\": \"The fox jumps!\", \"label\": 1}\n\n"
                                                    "{\"content\": \"a lazy zebra\", \"label\": 0}\n");
  auto pipeline = bert().make_pipeline(
      spec("tiny", 2, {{"data", "jsonl"}, {"jsonl", jsonl}, {"vocab", vocab_path}, {"seq_len", 8}}));
  EXPECT_EQ(pipeline->data_info().source, "jsonl");
  EXPECT_EQ(pipeline->data_info().samples, 2);
  Batch b = pipeline->make_batch(0);
  ASSERT_EQ(b.inputs.sizes(), (std::vector<int64_t>{2, 2, 8}));
  auto row = [&](int i, int channel) {
    auto t = b.inputs[i][channel].contiguous();
    return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + 8);
  };
  EXPECT_EQ(row(0, 0), (std::vector<int64_t>{2, 4, 7, 8, 9, 15, 3, 0}));
  EXPECT_EQ(row(0, 1), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(row(1, 0), (std::vector<int64_t>{2, 20, 12, 1, 3, 0, 0, 0}));
  EXPECT_EQ(b.targets[0].item<int64_t>(), 1);
  EXPECT_EQ(b.targets[1].item<int64_t>(), 0);
}

TEST(Bert, BadJsonlLinesNameFileLineAndPointer) {
  pperf::testing::TempDir dir;
  std::string vocab;
  for (const auto& t : kVocab) vocab += t + "\n";
  const std::string vocab_path = dir.write("vocab.txt", vocab);
  auto error = [&](const std::string& contents) {
    const std::string path = dir.write("bad.jsonl", contents);
    try {
      bert().make_pipeline(spec("tiny", 2, {{"data", "jsonl"}, {"jsonl", path}, {"vocab", vocab_path}}));
    } catch (const InputError& e) {
      return std::string(e.what()).substr(dir.path().size() + 1);
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{\"content\": \"a\", \"label\": 0}\nnot json\n"), "bad.jsonl:2: not a JSON object");
  EXPECT_EQ(error("{\"text\": \"a\", \"label\": 0}\n"), "bad.jsonl:1: /content: missing or not a string");
  EXPECT_EQ(error("{\"content\": \"a\", \"label\": 5}\n"), "bad.jsonl:1: /label: must be an integer class in [0, 2)");
  EXPECT_EQ(error(""), "bad.jsonl: no records");
}

TEST(Bert, SyntheticBatchesAreDeterministic) {
  auto a = bert().make_pipeline(spec("tiny", 4, {{"seq_len", 16}}));
  auto b = bert().make_pipeline(spec("tiny", 4, {{"seq_len", 16}}));
  EXPECT_TRUE(torch::equal(a->make_batch(5).inputs, b->make_batch(5).inputs));
  EXPECT_FALSE(torch::equal(a->make_batch(5).inputs, a->make_batch(6).inputs));
  EXPECT_EQ(a->data_info().source, "synthetic");
  Batch x = a->make_batch(0);
  EXPECT_GE(x.inputs.select(1, 0).min().item<int64_t>(), 1000);
  EXPECT_LT(x.inputs.select(1, 0).max().item<int64_t>(), 30522);
  EXPECT_EQ(x.inputs.select(1, 1).sum().item<int64_t>(), 4 * 16);
}

TEST(Bert, StepsOnAFixedBatchReduceTheLoss) {
  auto w = bert().make_workload(spec("tiny", 8, {{"seq_len", 16}, {"lr", 1e-3}}));
  Batch batch = bert().make_pipeline(spec("tiny", 8, {{"seq_len", 16}}))->make_batch(0);
  double first = w->train_step(batch), last = first;
  for (int i = 0; i < 15; ++i) last = w->train_step(batch);
  EXPECT_LT(last, first * 0.5) << "first " << first << " last " << last;
}

TEST(Bert, LongFullStep) {
  auto w = bert().make_workload(spec("base", 1, {{"seq_len", 32}}));
  Batch batch = bert().make_pipeline(spec("base", 1, {{"seq_len", 32}}))->make_batch(0);
  EXPECT_TRUE(std::isfinite(w->train_step(batch)));
}
