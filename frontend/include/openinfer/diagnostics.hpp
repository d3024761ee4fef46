// Helpers for the parser's error messages, also used by tools that report on graphs.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "openinfer/error.hpp"

namespace oi {

// The candidate closest to `word` by edit distance (a swap of neighbours counts as one edit), if it
// is close enough to be a likely typo (at most a third of the word's length, and at least 1, edits
// away; never `word` itself).
std::optional<std::string_view> closest_match(std::string_view word,
                                              std::span<const std::string_view> candidates);
std::optional<std::string_view> closest_match(std::string_view word,
                                              std::initializer_list<std::string_view> candidates);

// "did you mean 'X'?" for the closest candidate, or empty when none is close.
std::string did_you_mean(std::string_view word, std::initializer_list<std::string_view> candidates);

// The whole report as the CLI prints it: "WHERE: error: MESSAGE\nCONTEXT".
std::string format_error(const Error& error);

}  // namespace oi
