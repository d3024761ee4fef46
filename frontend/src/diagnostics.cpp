// Typo suggestions and error formatting.
#include "openinfer/diagnostics.hpp"

#include <algorithm>
#include <vector>

namespace oi {

namespace {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
// adjacent characters ("raed" -> "read") each cost one.
size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t width = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * width);
  for (size_t i = 0; i <= a.size(); ++i) d[i * width] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t best = std::min({d[(i - 1) * width + j] + 1, d[i * width + j - 1] + 1,
                              d[(i - 1) * width + j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, d[(i - 2) * width + j - 2] + 1);
      }
      d[i * width + j] = best;
    }
  }
  return d[a.size() * width + b.size()];
}

}  // namespace

std::optional<std::string_view> closest_match(std::string_view word,
                                              std::span<const std::string_view> candidates) {
  // Long garbage words are never typos of short keywords; skip the quadratic work.
  if (word.empty() || word.size() > 64) return std::nullopt;
  size_t limit = std::max<size_t>(1, word.size() / 3);
  std::optional<std::string_view> best;
  size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    if (candidate == word) continue;
    size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::optional<std::string_view> closest_match(std::string_view word,
                                              std::initializer_list<std::string_view> candidates) {
  return closest_match(word,
                       std::span<const std::string_view>(candidates.begin(), candidates.size()));
}

std::string did_you_mean(std::string_view word,
                         std::initializer_list<std::string_view> candidates) {
  std::optional<std::string_view> match = closest_match(word, candidates);
  if (!match) return {};
  return "did you mean '" + std::string(*match) + "'?";
}

std::string format_error(const Error& error) {
  std::string out;
  if (!error.where().empty()) out += error.where() + ": ";
  out += "error: ";
  out += error.what();
  if (!error.context().empty()) out += "\n" + error.context();
  return out;
}

}  // namespace oi
