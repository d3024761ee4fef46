// Typo suggestions and error formatting.
#include "openinfer/diagnostics.hpp"

#include <algorithm>
#include <vector>

namespace oi {

namespace {

// Levenshtein distance, with one row of scratch space.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
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
