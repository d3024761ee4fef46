// Compares what examples/gpt/gpt.oi computed with PyTorch's reference package
// (export_gpt.py --reference): the tokens fed at every position, every position's logits, and
// the greedy tokens. Used by the example program (--reference) and by tests/gpt.
//
// Logits pass when max |got - want| <= rel_tol * max |want|. A greedy token must equal
// PyTorch's wherever PyTorch's best two logits differ by more than that tolerance; at a closer
// call either token is right, and if the two differ there the sequences part, so positions
// after it are not compared (the report says so).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "openinfer/model.hpp"
#include "openinfer/tensor.hpp"

namespace gpt {

struct CheckResult {
  bool ok = true;
  double max_diff = 0, max_logit = 0, tolerance = 0;
  uint64_t positions_compared = 0, tokens_compared = 0;
  std::string report;  // one line per problem, then a summary line
};

// `logits_at` [>= n, Vocab] and `fed` [>= n] are the graph's tables (fetched whole: a @fixed
// table comes with its bound's entries); `generated` holds each step's `next`.
inline CheckResult check_against_reference(const oi::Tensor& logits_at, const oi::Tensor& fed,
                                           const std::vector<int64_t>& generated,
                                           const oi::Model& reference, double rel_tol = 2e-3) {
  CheckResult r;
  std::ostringstream out;
  const oi::Tensor want_logits = reference.tensor("logits");
  const oi::Tensor want_fed = reference.tensor("tokens");
  const oi::Tensor want_gen = reference.tensor("generated");
  const uint64_t n = want_logits.shape().at(0), vocab = want_logits.shape().at(1);
  const uint64_t prompt = n + 1 - want_gen.numel();
  auto fail = [&](const std::string& msg) {
    r.ok = false;
    out << msg << "\n";
  };
  if (logits_at.rank() != 2 || logits_at.shape()[1] != vocab || logits_at.shape()[0] < n ||
      fed.numel() < n || generated.size() != want_gen.numel()) {
    fail("the run does not have the reference's shape: " + std::to_string(n) + " positions of " +
         std::to_string(vocab) + " logits and " + std::to_string(want_gen.numel()) +
         " generated tokens");
    r.report = out.str();
    return r;
  }
  for (uint64_t i = 0; i < n * vocab; ++i)
    r.max_logit = std::max(r.max_logit, std::abs(want_logits.get_float(i)));
  r.tolerance = rel_tol * r.max_logit;

  for (uint64_t pos = 0; pos < n; ++pos) {
    if (fed.get_int(pos) != want_fed.get_int(pos)) {
      fail("position " + std::to_string(pos) + ": fed token " + std::to_string(fed.get_int(pos)) +
           ", PyTorch fed " + std::to_string(want_fed.get_int(pos)));
      break;
    }
    double best = -INFINITY, second = -INFINITY;
    for (uint64_t j = 0; j < vocab; ++j) {
      const double want = want_logits.get_float(pos * vocab + j);
      const double diff = std::abs(logits_at.get_float(pos * vocab + j) - want);
      if (!(diff <= r.tolerance)) {  // NaN fails too
        if (r.ok)
          out << "position " << pos << " logit " << j << ": got "
              << logits_at.get_float(pos * vocab + j) << ", want " << want << "\n";
        r.ok = false;
      }
      r.max_diff = std::max(r.max_diff, std::isnan(diff) ? INFINITY : diff);
      if (want > best) {
        second = best;
        best = want;
      } else if (want > second) {
        second = want;
      }
    }
    ++r.positions_compared;
    if (pos + 1 < prompt) continue;
    const uint64_t g = pos + 1 - prompt;  // this position picks generated[g]
    const int64_t want = want_gen.get_int(g);
    if (generated[g] == want) {
      ++r.tokens_compared;
      continue;
    }
    if (best - second > r.tolerance) {
      fail("generated token " + std::to_string(g) + " (position " + std::to_string(pos) +
           "): got " + std::to_string(generated[g]) + ", PyTorch picked " + std::to_string(want) +
           " by a margin of " + std::to_string(best - second));
    } else {
      out << "generated token " << g << ": a near tie (margin " << best - second << "), picked "
          << generated[g] << " where PyTorch picked " << want
          << "; later positions are not compared\n";
    }
    break;
  }
  out << (r.ok ? "ok" : "FAILED") << ": " << r.positions_compared << " positions, "
      << r.tokens_compared << " greedy tokens compared; max |d logit| " << r.max_diff
      << " (tolerance " << r.tolerance << " = " << rel_tol << " * max |logit| " << r.max_logit
      << ")\n";
  r.report = out.str();
  return r;
}

}  // namespace gpt
