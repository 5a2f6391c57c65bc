#include "workloads/bert_classification/wordpiece.h"

#include <fstream>

#include "src/core/input_error.h"

namespace pperf {

namespace {
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
// ASCII punctuation, as BERT's basic tokenizer treats it (non-ASCII bytes stay inside words).
bool is_punct(unsigned char c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}
constexpr size_t kMaxWordBytes = 100;
}  // namespace

WordPieceTokenizer WordPieceTokenizer::from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open vocab file");
  std::vector<std::string> vocab;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    vocab.push_back(line);
  }
  return WordPieceTokenizer(vocab, path);
}

WordPieceTokenizer::WordPieceTokenizer(const std::vector<std::string>& vocab, const std::string& origin) {
  for (size_t i = 0; i < vocab.size(); ++i) ids_.emplace(vocab[i], static_cast<int64_t>(i));
  auto special = [&](const char* token) {
    auto it = ids_.find(token);
    if (it == ids_.end()) throw InputError(origin, "", std::string("vocab has no ") + token + " token");
    return it->second;
  };
  pad_ = special("[PAD]");
  unk_ = special("[UNK]");
  cls_ = special("[CLS]");
  sep_ = special("[SEP]");
}

std::vector<std::string> WordPieceTokenizer::basic_tokenize(const std::string& text) const {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word), word.clear();
  };
  for (unsigned char c : text) {
    if (is_space(c) || c < 32 || c == 127) {
      flush();
    } else if (is_punct(c)) {
      flush();
      words.emplace_back(1, static_cast<char>(c));
    } else {
      word.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    }
  }
  flush();
  return words;
}

std::vector<int64_t> WordPieceTokenizer::wordpiece(const std::string& word) const {
  if (word.size() > kMaxWordBytes) return {unk_};
  std::vector<int64_t> pieces;
  size_t start = 0;
  while (start < word.size()) {
    // Longest prefix of the rest that is in the vocab ("##"-prefixed after the first piece).
    int64_t found = -1;
    size_t end = word.size();
    for (; end > start; --end) {
      const std::string candidate = (start > 0 ? "##" : "") + word.substr(start, end - start);
      auto it = ids_.find(candidate);
      if (it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) return {unk_};
    pieces.push_back(found);
    start = end;
  }
  return pieces;
}

std::vector<int64_t> WordPieceTokenizer::encode(const std::string& text, int64_t seq_len) const {
  std::vector<int64_t> ids = {cls_};
  for (const auto& word : basic_tokenize(text)) {
    for (int64_t id : wordpiece(word)) ids.push_back(id);
    if (static_cast<int64_t>(ids.size()) >= seq_len - 1) break;
  }
  if (static_cast<int64_t>(ids.size()) > seq_len - 1) ids.resize(seq_len - 1);
  ids.push_back(sep_);
  ids.resize(seq_len, pad_);
  return ids;
}

}  // namespace pperf
