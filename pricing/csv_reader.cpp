// RFC 4180 CSV, one row at a time (price_import.h).
#include "pricing/price_import.h"

#include <fmt/format.h>

#include "src/core/input_error.h"

namespace pperf {

CsvReader::CsvReader(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {
  if (text_.rfind("\xEF\xBB\xBF", 0) == 0) i_ = 3;  // a UTF-8 byte-order mark
}

bool CsvReader::next(std::vector<CsvField>& row) {
  row.clear();
  if (i_ >= text_.size()) return false;
  CsvField field;
  bool quoted = false, field_started = false;
  auto start_field = [&] {
    if (!field_started) field.line = line_, field.column = column_, field_started = true;
  };
  auto end_field = [&] {
    start_field();
    row.push_back(std::move(field));
    field = CsvField{};
    field_started = false;
  };
  size_t quote_line = 0, quote_column = 0;
  for (; i_ < text_.size(); ++i_) {
    const char c = text_[i_];
    if (quoted) {
      if (c == '"' && i_ + 1 < text_.size() && text_[i_ + 1] == '"') {
        field.text += '"';
        ++i_, column_ += 2;
        continue;
      }
      if (c == '"') {
        quoted = false;
        ++column_;
        if (i_ + 1 < text_.size() && text_[i_ + 1] != ',' && text_[i_ + 1] != '\n' && text_[i_ + 1] != '\r')
          throw InputError(file_, fmt::format("line {}, column {}", line_, column_), "text after a closing quote");
        continue;
      }
      field.text += c;
      if (c == '\n') ++line_, column_ = 1;
      else ++column_;
      continue;
    }
    if (c == '"') {
      start_field();
      if (!field.text.empty()) throw InputError(file_, fmt::format("line {}, column {}", line_, column_), "a quote inside an unquoted field");
      quoted = true;
      quote_line = line_, quote_column = column_;
      ++column_;
    } else if (c == ',') {
      end_field();
      ++column_;
    } else if (c == '\r' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      end_field();
      ++i_, ++line_, column_ = 1;
      return true;
    } else {
      start_field();
      field.text += c;
      ++column_;
    }
  }
  if (quoted) throw InputError(file_, fmt::format("line {}, column {}", quote_line, quote_column), "a quoted field is never closed");
  end_field();
  return true;
}

}  // namespace pperf
