// The shape rules of core/src/catalog/shape_rules.cpp that the host program evaluates at run
// time, with the simulator's words: for an op reading a whole @auto_dim matrix that grew
// (the emitter's auto_dim_guard.cpp), whose kernel was written for the matrix's declared shape.
// The emitter writes a "guard" only where the op's static output pins the matrix's shape, so
// another shape always stops the step, as in the simulator (interpreter_op.cpp): either the
// rule's error or the result's shape differing from the output's.
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "openinfer/broadcast.hpp"

namespace shape_rules {

inline std::string dims_text(const std::vector<uint64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

inline std::vector<uint64_t> dims_of(const boost::json::value& v) {
  std::vector<uint64_t> d;
  for (const boost::json::value& x : v.as_array()) d.push_back(x.to_number<uint64_t>());
  return d;
}

// numpy broadcasting: the SDK's rule (openinfer/broadcast.hpp, shipped beside this file).
inline bool broadcast(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                      std::vector<uint64_t>& out) {
  auto shape = oi::geometry::broadcast_shape(a, b);
  if (shape) out = std::move(*shape);
  return shape.has_value();
}

// The result's shape by the guard's rule for the inputs' shapes, or the rule's error (empty
// when none).
inline std::string result_shape(const boost::json::object& g,
                                const std::vector<std::vector<uint64_t>>& in,
                                std::vector<uint64_t>& out) {
  const std::string rule(g.at("rule").as_string());
  if (rule == "broadcast") {
    const bool bc = g.at("broadcast").as_bool();
    out = in.at(0);
    for (size_t i = 1; i < in.size(); ++i) {
      std::vector<uint64_t> b;
      if (bc) {
        if (!broadcast(out, in[i], b))
          return "input shapes " + dims_text(out) + " and " + dims_text(in[i]) +
                 " do not broadcast";
        out = b;
      } else if (in[i] != out) {
        return "input shapes " + dims_text(out) + " and " + dims_text(in[i]) + " differ and '" +
               std::string(g.at("op").as_string()) + "' does not broadcast";
      }
    }
    return {};
  }
  if (rule == "matmul") {
    const std::vector<uint64_t>&a = in.at(0), &b = in.at(1);
    if (a.size() < 2 || b.size() < 2)
      return "matmul needs inputs of rank >= 2, got " + dims_text(a) + " and " + dims_text(b);
    if (a[a.size() - 1] != b[b.size() - 2])
      return "matmul inner dimensions differ: " + dims_text(a) + " x " + dims_text(b);
    const std::vector<uint64_t> ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
    if (!broadcast(ba, bb, out))
      return "matmul batch dimensions of " + dims_text(a) + " and " + dims_text(b) +
             " do not broadcast";
    out.push_back(a[a.size() - 2]);
    out.push_back(b[b.size() - 1]);
    return {};
  }
  out = in.at(0);  // "same": the first input's shape (its axis checked when emitting)
  return {};
}

// The simulator's error for the guard's op where its operand has run-time shape `shape`
// (after the "where" prefix): the rule's error, or the result against the output's shape;
// empty where the result has the output's shape (which the emitter's guard rules out).
inline std::string guard_error(const boost::json::object& g, const std::vector<uint64_t>& shape) {
  std::vector<std::vector<uint64_t>> in;
  for (const boost::json::value& d : g.at("inputs").as_array()) in.push_back(dims_of(d));
  in.at(g.at("operand").to_number<size_t>()) = shape;
  const std::string op(g.at("op").as_string());
  std::vector<uint64_t> out;
  const std::string err = result_shape(g, in, out);
  if (!err.empty()) return "op '" + op + "': " + err;
  const std::vector<uint64_t> target = dims_of(g.at("output_shape"));
  if (out != target)
    return "op '" + op + "' produces shape " + dims_text(out) + " but output '" +
           std::string(g.at("output").as_string()) + "' has shape " + dims_text(target);
  return {};
}

}  // namespace shape_rules
