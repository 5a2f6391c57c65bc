#pragma once
// How many members an aggregate has: the most values that convert to anything it can be
// brace-initialized with (Boost.PFR's technique; Debian 12's Boost 1.74 predates PFR). Tests
// pin each record's count beside the check that every member reaches its JSON, so a member
// added without a key fails the suite instead of being silently dropped from results files.
#include <cstddef>
#include <type_traits>
#include <utility>

namespace pperf::testing {

struct AnyMember {
  template <typename T>
  operator T() const;  // declared only: used in unevaluated contexts
};

template <typename T, typename... Values>
auto brace_initializable(int) -> decltype(T{std::declval<Values>()...}, std::true_type{});
template <typename T, typename... Values>
std::false_type brace_initializable(...);

template <typename T, typename... Values>
constexpr std::size_t member_count() {
  if constexpr (decltype(brace_initializable<T, Values..., AnyMember>(0))::value)
    return member_count<T, Values..., AnyMember>();
  else
    return sizeof...(Values);
}

}  // namespace pperf::testing
