// Every parse error names FILE:LINE:COL, shows the line with a caret, and hints where it helps.
#define BOOST_TEST_MODULE frontend_parser_errors
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/diagnostics.hpp"
#include "openinfer/graph.hpp"

using namespace oi;

namespace {

struct Failure {
  std::string where;
  std::string message;
  std::string context;
};

Failure parse_failure(const std::string& text) {
  try {
    Graph::parse(text, "g.oi");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    return {e.where(), e.what(), e.context()};
  }
  BOOST_FAIL("expected a parse error for: " + text);
  return {};
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(missing_shift_after_op_arguments) {
  Failure f = parse_failure("block entry {\n  op add(x, y) t;\n}");
  BOOST_TEST(f.where == "g.oi:2:16");
  BOOST_TEST(f.message == "expected '>>' after the op's arguments, found 't'");
  BOOST_TEST(f.context ==
             "      op add(x, y) t;\n"
             "                   ^\n"
             "    hint: every op writes its output: `op NAME(inputs, settings) >> output;`");
}

BOOST_AUTO_TEST_CASE(unknown_section_keyword_suggests_the_right_one) {
  Failure f = parse_failure("constants {\n  alpha: f32;\n}\nblock entry { return; }");
  BOOST_TEST(f.where == "g.oi:1:1");
  BOOST_TEST(contains(f.message, "expected a memory section or a block, found 'constants'"));
  BOOST_TEST(contains(f.context, "hint: did you mean 'constant'?"));
  BOOST_TEST(contains(parse_failure("blok entry { }").context, "did you mean 'block'?"));
}

BOOST_AUTO_TEST_CASE(format_error_prints_like_the_cli) {
  try {
    Graph::parse("block entry { retrun; }", "g.oi");
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST(format_error(e) ==
               "g.oi:1:15: error: unknown node 'retrun'\n"
               "    block entry { retrun; }\n"
               "                  ^\n"
               "    hint: did you mean 'return'?");
  }
}

BOOST_AUTO_TEST_CASE(lexical_errors) {
  Failure s = parse_failure("constant { a: i8 @doc(\"open); }");
  BOOST_TEST(s.message == "unterminated string");
  BOOST_TEST(s.where == "g.oi:1:23");
  BOOST_TEST(parse_failure("block entry { } /* never closed").message ==
             "unterminated block comment");
  BOOST_TEST(parse_failure("block entry { op a(x) > y; }").message == "unexpected character '>'");
  BOOST_TEST(parse_failure("block entry { $ }").message == "unexpected character");
  BOOST_TEST(parse_failure("block entr\xc3\xa9 { }").message == "unexpected non-ASCII character");
  BOOST_TEST(parse_failure("constant { a: f32 @init(1e); } block e { }").message ==
             "malformed number: the exponent has no digits");
  BOOST_TEST(parse_failure("constant { a: f32[3D]; } block e { }").message ==
             "malformed number: a letter follows the digits");
  BOOST_TEST(parse_failure("constant { a: i8 @doc(\"a\xff\"); } block e { }").message ==
             "string is not valid UTF-8");
  BOOST_TEST(parse_failure("constant { a: i8 @doc(\"\xed\xa0\x80\"); } block e { }").message ==
             "string is not valid UTF-8");
  BOOST_TEST(Graph::parse("constant { a: i8 @doc(\"\xc3\xa9 \xf0\x9f\x98\x80\"); } block e { }")
                 .decls[0]
                 .other_attributes[0]
                 .args[0]
                 .text == "\xc3\xa9 \xf0\x9f\x98\x80");
  BOOST_TEST(parse_failure("constant { a: i8 @doc(\"\\t\"); } block e { }").message ==
             "unknown escape in string");
}

BOOST_AUTO_TEST_CASE(unknown_dtype_with_suggestion) {
  Failure f = parse_failure("dynamic { x: f31[B]; }\nblock entry { return; }");
  BOOST_TEST(f.message == "unknown dtype 'f31'");
  BOOST_TEST(f.where == "g.oi:1:14");
  BOOST_TEST(contains(f.context, "did you mean"));
  Failure far = parse_failure("dynamic { x: tensor[B]; } block e { }");
  BOOST_TEST(contains(far.context, "dtypes are f8 bf16"));
  BOOST_TEST(parse_failure("block e { assign t: float32; }").message == "unknown dtype 'float32'");
}

BOOST_AUTO_TEST_CASE(attribute_written_without_at_sign) {
  Failure f = parse_failure("volatile { W(l): f32[D, D] pattern(\"W.{l}\"); } block e { }");
  BOOST_TEST(f.message == "expected ';' after the declaration, found 'pattern'");
  BOOST_TEST(contains(f.context, "attributes start with '@'"));
}

BOOST_AUTO_TEST_CASE(declaration_errors) {
  BOOST_TEST(parse_failure("constant { a f32; } block e { }").message ==
             "expected ':' after the variable name, found 'f32'");
  BOOST_TEST(parse_failure("constant { a: f32 @init(1) @init(2); } block e { }").message ==
             "duplicate attribute '@init' on 'a'");
  BOOST_TEST(parse_failure("constant { a: f32 @ref(x); } block e { }").message ==
             "expected a string in '@ref', found 'x'");
  BOOST_TEST(parse_failure("constant { a: f32 @fixed(i); } block e { }").message ==
             "expected '=' after the index name, found ')'");
  BOOST_TEST(parse_failure("constant { a: f32 @init(x); } block e { }").message ==
             "expected a literal (number, inf, true, false or string), found 'x'");
  BOOST_TEST(parse_failure("constant { a: f32[B,]; } block e { }").message ==
             "expected a dimension (an integer or a size variable), found ']'");
  BOOST_TEST(parse_failure("constant { a: f32 @; } block e { }").message ==
             "expected an attribute name after '@', found ';'");
  BOOST_TEST(parse_failure("constant { loop: f32; } block e { }").message ==
             "expected a variable name, found the keyword 'loop'");
  BOOST_TEST(parse_failure("constant { a: f32;").message == "unterminated 'constant' section");
  BOOST_TEST(parse_failure("block e { } constant { a: f32; }").message ==
             "memory section after a block");
  BOOST_TEST(
      parse_failure("constant { a: i64 @init(-9223372036854775809); } block e { }").message ==
      "integer out of range: 9223372036854775809");
  BOOST_TEST(
      parse_failure("constant { a: u64 @init(18446744073709551616); } block e { }").message ==
      "integer out of range: 18446744073709551616");
  BOOST_TEST(
      parse_failure("constant { a: i64 @init(99999999999999999999); } block e { }").message ==
      "integer out of range: 99999999999999999999");
  BOOST_TEST(parse_failure("constant { a: f64 @init(1e999); } block e { }").message ==
             "number out of range: 1e999");
}

BOOST_AUTO_TEST_CASE(node_errors) {
  BOOST_TEST(parse_failure("").message == "a graph needs at least one block");
  BOOST_TEST(parse_failure("dynamic { }").message == "a graph needs at least one block");
  BOOST_TEST(parse_failure("block e { op add(x, a=1, y) >> z; }").message ==
             "expected a setting (name=value) after the settings");
  BOOST_TEST(parse_failure("block e { op add(x y) >> z; }").message ==
             "expected ')' after the op's arguments, found 'y'");
  BOOST_TEST(parse_failure("block e { cache.raed K >> k; }").context.find("did you mean 'read'?") !=
             std::string::npos);
  BOOST_TEST(parse_failure("block e { cache.read K[0..2] >> k[0..1]; }").message ==
             "the destination of cache.read cannot be a slice");
  BOOST_TEST(parse_failure("block e { transfer a >> b[0..1]; }").message ==
             "expected ']' after the indices, found '..'");
  BOOST_TEST(parse_failure("block e { branch c yes; }").message ==
             "expected the block to run when false, found ';'");
  BOOST_TEST(parse_failure("block e { loop l (i in 0...3) { } }").message ==
             "expected an integer or a name as the loop end, found '.'");
  BOOST_TEST(parse_failure("block e { loop l (i of 0..3) { } }").message ==
             "expected 'in' after the loop index, found 'of'");
  BOOST_TEST(parse_failure("block e { dep before(a) after(b); }").message ==
             "expected 'after' after 'dep', found 'before'");
  BOOST_TEST(parse_failure("block e { yield; }").message == "expected a variable name, found ';'");
  BOOST_TEST(parse_failure("block e { return").message ==
             "expected an output name, found end of input");
  BOOST_TEST(parse_failure("block e { op add(x) >> y;").message ==
             "expected '}' to close the block, found end of input");
  BOOST_TEST(parse_failure("block e { { } }").context.find("blocks cannot nest") !=
             std::string::npos);
  BOOST_TEST(parse_failure("block e { op r(x, a=) >> y; }").message ==
             "expected a literal (number, inf, true, false or string), found ')'");
  BOOST_TEST(parse_failure("block e { op r(x, a=[1.5]) >> y; }").message ==
             "expected an integer, found '1.5'");
  BOOST_TEST(parse_failure("block e { cache.read K[t-x] >> k; }").message ==
             "expected an integer after '-', found 'x'");
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_capped_not_a_stack_overflow) {
  std::string text = "block e {";
  for (int i = 0; i < 100000; ++i) text += "loop l (i in 0..2) {";
  Failure f = parse_failure(text);
  BOOST_TEST(f.message == "loops nest too deeply (more than 64 levels)");
  std::string ok = "block e {";
  for (int i = 0; i < 64; ++i) ok += "loop l (i in 0..2) {";
  for (int i = 0; i < 64; ++i) ok += "}";
  ok += "}";
  BOOST_TEST(Graph::parse(ok).node_count() == 64u);
}

BOOST_AUTO_TEST_CASE(caret_keeps_tabs_and_hint_survives_without_source) {
  Failure f = parse_failure("block e {\n\t\top add(x) y;\n}");
  BOOST_TEST(f.context ==
             "    \t\top add(x) y;\n    \t\t          ^\n"
             "    hint: every op writes its output: `op NAME(inputs, settings) >> "
             "output;`");
  BOOST_TEST(source_excerpt("", SourceLocation{"x", 1, 1}, "h") == "    hint: h");
  BOOST_TEST(source_excerpt("a\nb", SourceLocation{"x", 9, 1}) == "");
}

// A 200 KB line with an error near its middle prints a window around the caret, not the line.
BOOST_AUTO_TEST_CASE(long_line_error_prints_a_window) {
  std::string line =
      "volatile { a: f32[4]; }" + std::string(100000, ' ') + "?" + std::string(100000, ' ');
  Failure f = parse_failure(line + "\nblock e { return; }\n");
  BOOST_TEST(f.context.size() < 400u, f.context.size());
  const size_t caret_line = f.context.find('\n');
  BOOST_REQUIRE(caret_line != std::string::npos);
  const std::string shown = f.context.substr(0, caret_line);
  const std::string carets =
      f.context.substr(caret_line + 1, f.context.find('\n', caret_line + 1) - caret_line - 1);
  BOOST_TEST(shown.find("...") != std::string::npos);
  BOOST_REQUIRE(carets.find('^') != std::string::npos);
  BOOST_TEST(shown[carets.find('^')] == '?');  // the caret still points at the bad character
  // Short lines are printed whole, as before.
  BOOST_TEST(source_excerpt("abc def", SourceLocation{"x", 1, 5}) == "    abc def\n        ^");
}

BOOST_AUTO_TEST_CASE(closest_match_only_for_near_misses) {
  BOOST_TEST(*closest_match("volatle", {"dynamic", "volatile"}) == "volatile");
  BOOST_TEST(!closest_match("zzzzzz", {"dynamic", "volatile"}).has_value());
  BOOST_TEST(!closest_match("", {"a"}).has_value());
  BOOST_TEST(did_you_mean("retrun", {"return"}) == "did you mean 'return'?");
  BOOST_TEST(did_you_mean("raed", {"read", "write"}) == "did you mean 'read'?");
  BOOST_TEST(did_you_mean("persistant", {"dynamic", "persistent"}) == "did you mean 'persistent'?");
}
