#pragma once
// A record's plain members and their JSON keys, listed once beside the record (`json_field`
// rows in a tuple): `write_fields` writes them and `read_fields` fills them, so a plain figure is a
// member and one row. Plain: a number, bool, string, [lo, hi] pair or list of numbers or strings,
// or an optional of one. Members that need more (nesting, enums, range checks, defaults for old
// files) are written and read by hand around the rows.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "src/core/json_view.h"

namespace pperf {

template <typename Record, typename T>
struct JsonField {
  const char* key;
  T Record::*member;
  bool absent_when_empty = false;  // an empty optional is left out rather than written as null
};

template <typename Record, typename T>
constexpr JsonField<Record, T> json_field(const char* key, T Record::*member) {
  return {key, member, false};
}

/// A field added to a record after files were written without it: left out when empty, so such a
/// file read and written again is byte-identical (docs/results.md: "absent in files from before it").
template <typename Record, typename T>
constexpr JsonField<Record, std::optional<T>> json_field_added(const char* key, std::optional<T> Record::*member) {
  return {key, member, true};
}

namespace json_fields_detail {
inline void read_as(const JsonView& v, double& out) { out = v.as_number(); }
inline void read_as(const JsonView& v, int64_t& out) { out = v.as_int(); }
inline void read_as(const JsonView& v, bool& out) { out = v.as_bool(); }
inline void read_as(const JsonView& v, std::string& out) { out = v.as_string(); }
inline void read_as(const JsonView& v, std::array<double, 2>& out) { out = v.as_pair(); }
inline void read_as(const JsonView& v, std::vector<double>& out) { out = v.as_numbers(); }
inline void read_as(const JsonView& v, std::vector<std::string>& out) { out = v.as_strings(); }

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

template <typename Record, typename T>
void write_member(nlohmann::json& j, const Record& record, const JsonField<Record, T>& field) {
  const T& value = record.*(field.member);
  if constexpr (is_optional<T>::value) {
    if (!value && field.absent_when_empty) return;
    j[field.key] = value_or_null(value);
  } else {
    j[field.key] = value;
  }
}

/// A plain member must be present; an optional one may be absent (a file from before it) or null
/// (it does not apply), and is then empty.
template <typename T>
void read_member(const JsonView& record, const char* key, T& out) { read_as(record.at(key), out); }
template <typename T>
void read_member(const JsonView& record, const char* key, std::optional<T>& out) {
  out.reset();
  if (const auto v = record.find_value(key)) read_as(*v, out.emplace());
}
}  // namespace json_fields_detail

/// Sets each row's key of `j`: the member's value, an empty optional as null (or left out:
/// json_field_added).
template <typename Record, typename... T>
void write_fields(nlohmann::json& j, const Record& record, const std::tuple<JsonField<Record, T>...>& fields) {
  std::apply([&](const auto&... f) { (json_fields_detail::write_member(j, record, f), ...); }, fields);
}

/// Fills each row's member from `v`; a missing plain member or a value of the wrong type fails
/// naming its JSON pointer (JsonView).
template <typename Record, typename... T>
void read_fields(const JsonView& v, Record& record, const std::tuple<JsonField<Record, T>...>& fields) {
  std::apply([&](const auto&... f) { (json_fields_detail::read_member(v, f.key, record.*(f.member)), ...); }, fields);
}

}  // namespace pperf
