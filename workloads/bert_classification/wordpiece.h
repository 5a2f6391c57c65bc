#pragma once
// WordPiece tokenization as BERT's uncased vocabularies expect it: lower-case, split on
// whitespace and punctuation, then greedy longest-match-first pieces with "##" continuations.
// Torch-free: it only maps text to ids.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pperf {

class WordPieceTokenizer {
 public:
  /// Reads a vocab file (one token per line, id = line number). InputError naming the file
  /// when it is missing or lacks [PAD], [UNK], [CLS] or [SEP].
  static WordPieceTokenizer from_file(const std::string& path);
  explicit WordPieceTokenizer(const std::vector<std::string>& vocab, const std::string& origin = "vocab");

  /// Lower-cased words and single punctuation characters, in order.
  std::vector<std::string> basic_tokenize(const std::string& text) const;
  /// Ids of one word's pieces; [UNK] alone when the word cannot be covered (or is > 100 bytes).
  std::vector<int64_t> wordpiece(const std::string& word) const;
  /// [CLS] tokens [SEP], truncated to `seq_len` (keeping [SEP] last) and padded with [PAD].
  std::vector<int64_t> encode(const std::string& text, int64_t seq_len) const;

  int64_t pad_id() const { return pad_; }
  int64_t unk_id() const { return unk_; }
  int64_t cls_id() const { return cls_; }
  int64_t sep_id() const { return sep_; }
  int64_t vocab_size() const { return static_cast<int64_t>(ids_.size()); }

 private:
  std::unordered_map<std::string, int64_t> ids_;
  int64_t pad_ = 0, unk_ = 0, cls_ = 0, sep_ = 0;
};

}  // namespace pperf
