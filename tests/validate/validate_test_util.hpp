// Helpers for the validation tests: parse a graph, validate it, and find where a snippet of
// the source sits (the expected LINE:COL, computed from the text itself).
#pragma once

#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/graph.hpp"
#include "openinfer/validate.hpp"

namespace oi::test {

// Declarations most tests share.
inline const std::string kPrelude = R"(dynamic { x: f32[B]; }
volatile { y: f32[B]; z: i8[B]; w: i32[B]; }
constant { c: f32[B]; n: i32 @init(3); }
persistent { step: i32 @init(0); K(l, t): f32[B] @table; }
)";

// LINE:COL of the first occurrence of `snippet` in `text`.
inline std::string where_is(const std::string& text, const std::string& snippet) {
  size_t at = text.find(snippet);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "snippet not in test text: " << snippet);
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// True when `diag` holds a message of `severity` at `loc` ("LINE:COL") containing `text`.
inline bool has_message(const Diagnostics& diag, const std::string& loc, const std::string& text,
                        Severity severity = Severity::Error) {
  for (const auto& m : diag.messages())
    if (m.severity == severity &&
        std::to_string(m.loc.line) + ":" + std::to_string(m.loc.col) == loc &&
        m.message.find(text) != std::string::npos)
      return true;
  return false;
}

}  // namespace oi::test

// Validates `body` (after the prelude) and checks for an error containing MSG at the place of
// the snippet AT.
#define EXPECT_ERROR_AT(diag, source, at, msg)                                        \
  BOOST_TEST(::oi::test::has_message(diag, ::oi::test::where_is(source, at), msg),    \
             "expected error '" << msg << "' at " << ::oi::test::where_is(source, at) \
                                << "; got:\n"                                         \
                                << diag.format())
