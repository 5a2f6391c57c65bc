#pragma once
// A network link of a given bandwidth on this host: a network namespace joined to ours by a veth
// pair, the namespace's end sending through a tc token bucket filter (tbf). Processes started
// inside it (exec_prefix()) reach us, and are reached, across the veth only, and what they send
// leaves at the shaped rate: data workers behind it feed the trainer as a real link would.
// (netem's rate does not hold at these rates here; tbf does.)
#include <string>
#include <vector>

namespace pperf {

/// "" when this host can make a ShapedLink (root, `ip` and `tc` on PATH); else why not, in words.
std::string shaped_link_obstacle();

class ShapedLink {
 public:
  /// Makes the namespace and the veth pair, and shapes the namespace's end to `rate_bit_per_s`.
  /// Throws std::runtime_error naming the step that failed (every step made so far undone).
  explicit ShapedLink(double rate_bit_per_s);
  ~ShapedLink();  // deletes the namespace (and its veth pair with it)
  ShapedLink(const ShapedLink&) = delete;
  ShapedLink& operator=(const ShapedLink&) = delete;

  /// Prepended to a command to run it inside the namespace: {PATH/ip, "netns", "exec", NAME}.
  std::vector<std::string> exec_prefix() const;
  /// The namespace's address (listen there) and ours on the veth.
  const std::string& inside_address() const { return inside_; }
  const std::string& outside_address() const { return outside_; }
  double rate_bit_per_s() const { return rate_; }
  /// How the link is made, for results: "tc qdisc tbf rate R burst B latency L on veth V of network namespace N".
  std::string how() const;

 private:
  std::string ip_, name_, veth_outside_, veth_inside_, inside_, outside_, tbf_;
  double rate_;
};

}  // namespace pperf
