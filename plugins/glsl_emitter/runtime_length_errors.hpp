// Lengths at which a kernel of run-time length stops the step as the simulator stops there
// (runtime_length.hpp): the op's shape rule failing for the matrix's length L (a broadcast, a
// reflect pad or a window that fits only some lengths), or its result differing from a plain
// output's shape. The emitter keeps the message, in the simulator's words, of every such length
// as runs of lengths one step apart (every other length: rope's odd last dims) whose messages
// are one text with each number a form a L + b; the host program stops the step with it before
// the dispatch (the manifest's "errors" in "length").
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace oi::glsl {

class LengthErrors {
 public:
  // Length L's message (after the op's position), L past every length added before.
  void add(uint64_t L, const std::string& message);
  size_t runs() const { return runs_.size(); }
  // The manifest's "errors": {"from", "to", "step": lengths from, from + step, .. to, "text":
  // the literal pieces, "numbers": [a, b] per number between them}.
  boost::json::array to_json() const;

 private:
  struct Run {
    uint64_t from = 0, to = 0, step = 1;
    std::vector<std::string> text;
    std::vector<int64_t> first;                      // the numbers at `from`
    std::vector<std::pair<int64_t, int64_t>> forms;  // a, b (from the second length on)
  };
  std::vector<Run> runs_;
};

}  // namespace oi::glsl
