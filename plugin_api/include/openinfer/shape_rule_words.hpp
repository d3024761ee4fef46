// Checks of the catalog's shape rules (core/src/catalog/shape_rules*.cpp) with their words, once
// for the simulator and for the emitters: a synthesized program whose operand's shape is known
// only at run time stops where the simulator stops, with its message (the GLSL emitter's
// runtime_length.cpp). Each returns the rule's error, empty where the shapes hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "openinfer/broadcast.hpp"

namespace oi::shape_words {

inline std::string dims(const std::vector<uint64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// An axis setting of a tensor of `rank`: within [-rank, rank).
inline std::string axis_error(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis >= -r && axis < r) return {};
  return "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
}

// attention: q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] (leading dims broadcast), the mask
// (if any) broadcast to the scores [..., Tq, Tk]; `out` gets the result [..., Tq, Dv].
inline std::string attention_error(const std::vector<uint64_t>& q, const std::vector<uint64_t>& k,
                                   const std::vector<uint64_t>& v,
                                   const std::vector<uint64_t>* mask, std::vector<uint64_t>& out) {
  if (q.size() < 2 || k.size() < 2 || v.size() < 2)
    return "attention needs q, k and v of rank >= 2, got " + dims(q) + ", " + dims(k) + " and " +
           dims(v);
  const uint64_t tq = q[q.size() - 2], d = q.back(), tk = k[k.size() - 2];
  if (k.back() != d)
    return "attention k " + dims(k) + " must end in q's depth " + std::to_string(d);
  if (v[v.size() - 2] != tk)
    return "attention v " + dims(v) + " must have k's " + std::to_string(tk) + " keys";
  auto lead = [](const std::vector<uint64_t>& t) {
    return std::vector<uint64_t>(t.begin(), t.end() - 2);
  };
  std::optional<std::vector<uint64_t>> batch = geometry::broadcast_shape(lead(q), lead(k));
  if (batch) batch = geometry::broadcast_shape(*batch, lead(v));
  if (!batch)
    return "attention leading dims of q " + dims(q) + ", k " + dims(k) + " and v " + dims(v) +
           " do not broadcast";
  std::vector<uint64_t> scores = *batch;
  scores.push_back(tq);
  scores.push_back(tk);
  if (mask) {
    auto m = geometry::broadcast_shape(scores, *mask);
    if (!m || *m != scores)
      return "attention mask " + dims(*mask) + " does not broadcast to the scores " + dims(scores);
  }
  out = std::move(*batch);
  out.push_back(tq);
  out.push_back(v.back());
  return {};
}

// conv's channels: x [N, C, ...], the weight w [M, C / group, ...] (both of rank 2 at least).
inline std::string conv_channels_error(const std::vector<uint64_t>& x,
                                       const std::vector<uint64_t>& w, int64_t group) {
  if (group < 1) return "'group' must be at least 1, got " + std::to_string(group);
  const auto g = static_cast<uint64_t>(group);
  if (x[1] % g != 0 || w[0] % g != 0)
    return "'group' " + std::to_string(group) + " must divide the input channels " +
           std::to_string(x[1]) + " and the output channels " + std::to_string(w[0]);
  if (w[1] * g != x[1])
    return "conv weight " + dims(w) + " has " + std::to_string(w[1]) +
           " input channels per group but x " + dims(x) + " with group " + std::to_string(group) +
           " needs " + std::to_string(x[1] / g);
  return {};
}

// rope: x [..., T, D] with D even (pairs rotated), the position a scalar.
inline std::string rope_error(const std::vector<uint64_t>& x, const std::vector<uint64_t>& pos) {
  if (x.size() < 2) return "rope needs x of rank >= 2 ([..., T, D]), got " + dims(x);
  if (x.back() % 2 != 0)
    return "rope needs an even last dim, got " + std::to_string(x.back()) + " in " + dims(x);
  if (!pos.empty()) return "rope pos must be a scalar, got " + dims(pos);
  return {};
}

}  // namespace oi::shape_words
