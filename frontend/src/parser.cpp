// Parser entry, token cursor, errors and the shared grammar pieces (literals, dims, refs).
#include "parser.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "openinfer/diagnostics.hpp"
#include "openinfer/error.hpp"

namespace oi::dsl {

namespace {

// `cache`, `after` and `before` are deliberately absent: they stay usable as names (dsl.md).
constexpr std::array<std::string_view, 19> kKeywords = {
    "dynamic",  "volatile", "constant", "persistent", "block",  "assign",  "op",
    "transfer", "loop",     "in",       "branch",     "return", "barrier", "dep",
    "yield",    "await",    "true",     "false",      "inf"};

constexpr std::array<std::string_view, 23> kDTypeNames = {
    "f8", "bf16", "f16", "f32", "f64", "i1",  "i2",  "i4", "i8", "i16",  "i32",   "i64",
    "u1", "u2",   "u4",  "u8",  "u16", "u32", "u64", "t1", "t2", "bool", "bitset"};

}  // namespace

bool is_keyword(std::string_view word) {
  for (std::string_view keyword : kKeywords) {
    if (keyword == word) return true;
  }
  return false;
}

Parser::Parser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

Graph Parser::parse() {
  graph_.origin = origin_;
  graph_.source.assign(text_);
  LexError lex_error;
  if (!tokenize(text_, tokens_, lex_error)) {
    SourceLocation loc{origin_, lex_error.line, lex_error.col};
    throw Error(ErrorKind::Input, std::string(lex_error.message), loc.to_string())
        .with_context(source_excerpt(text_, loc, lex_error.hint));
  }
  while (!at(TokenKind::End)) {
    const Token& token = peek();
    if (token.kind == TokenKind::Ident) {
      if (std::optional<MemoryKind> memory = memory_kind_from_name(token.text)) {
        if (!graph_.blocks.empty()) {
          fail(token, "memory section after a block",
               "declare every memory section before the first block");
        }
        parse_section(*memory);
        continue;
      }
      if (token.text == "block") {
        graph_.blocks.push_back(parse_block());
        continue;
      }
      fail(token, "expected a memory section or a block, found '" + std::string(token.text) + "'",
           did_you_mean(token.text, {"dynamic", "volatile", "constant", "persistent", "block"}));
    }
    fail(token, "expected a memory section or a block, found " + std::string(describe(token.kind)));
  }
  if (graph_.blocks.empty()) {
    fail(peek(), "a graph needs at least one block", "add `block entry { ... return; }`");
  }
  graph_.number_nodes();
  return std::move(graph_);
}

// ---- cursor ----------------------------------------------------------------------------------

const Token& Parser::peek(size_t ahead) const {
  size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

const Token& Parser::advance() {
  const Token& token = peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

bool Parser::at_word(std::string_view word) const {
  return peek().kind == TokenKind::Ident && peek().text == word;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  advance();
  return true;
}

const Token& Parser::expect(TokenKind kind, std::string_view context, std::string_view hint) {
  if (!at(kind)) fail_expected(describe(kind), context, hint);
  return advance();
}

void Parser::expect_word(std::string_view word, std::string_view context) {
  if (!at_word(word)) fail_expected("'" + std::string(word) + "'", context);
  advance();
}

const Token& Parser::expect_name(std::string_view what) {
  const Token& token = peek();
  if (token.kind != TokenKind::Ident) {
    fail(token, "expected " + std::string(what) + ", found " + std::string(describe(token.kind)));
  }
  if (is_keyword(token.text)) {
    fail(token,
         "expected " + std::string(what) + ", found the keyword '" + std::string(token.text) + "'",
         "keywords cannot be used as names");
  }
  return advance();
}

// ---- errors ----------------------------------------------------------------------------------

SourceLocation Parser::location(const Token& token) const {
  return SourceLocation{origin_, token.line, token.col};
}

void Parser::fail(const Token& token, std::string message, std::string_view hint) {
  fail(location(token), std::move(message), hint);
}

void Parser::fail(const SourceLocation& loc, std::string message, std::string_view hint) {
  throw Error(ErrorKind::Input, std::move(message), loc.to_string())
      .with_context(source_excerpt(text_, loc, hint));
}

void Parser::fail_expected(std::string_view expected, std::string_view context,
                           std::string_view hint) {
  const Token& token = peek();
  std::string found = token.kind == TokenKind::End ? std::string("end of input")
                                                   : "'" + std::string(token.text) + "'";
  std::string message = "expected " + std::string(expected);
  if (!context.empty()) message += " " + std::string(context);
  message += ", found " + found;
  fail(token, std::move(message), hint);
}

// ---- literals --------------------------------------------------------------------------------

uint64_t Parser::parse_unsigned(const Token& token) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(token.text.data(), token.text.data() + token.text.size(), value);
  if (ec != std::errc() || end != token.text.data() + token.text.size()) {
    fail(token, "integer out of range: " + std::string(token.text), "integers must fit in 64 bits");
  }
  return value;
}

int64_t Parser::parse_int() {
  bool negative = accept(TokenKind::Minus);
  return parse_signed(expect(TokenKind::Int, negative ? "after '-'" : ""), negative);
}

int64_t Parser::parse_signed(const Token& token, bool negative) {
  uint64_t magnitude = parse_unsigned(token);
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > kMaxPositive + (negative ? 1 : 0)) {
    fail(token, "integer out of range: " + std::string(token.text),
         "integers must fit in a signed 64-bit value");
  }
  if (negative)
    return magnitude == kMaxPositive + 1 ? std::numeric_limits<int64_t>::min()
                                         : -static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude);
}

Value Parser::parse_literal() {
  const Token& first = peek();
  if (first.kind == TokenKind::String) return Value::string(parse_string());
  if (at_word("true") || at_word("false")) return Value::boolean(advance().text == "true");
  bool negative = accept(TokenKind::Minus);
  const Token& token = peek();
  if (token.kind == TokenKind::Int) {
    // A literal above INT64_MAX is a u64 value (validation lets it fit only u64).
    if (!negative && parse_unsigned(token) > static_cast<uint64_t>(INT64_MAX))
      return Value::unsigned_integer(parse_unsigned(advance()));
    return Value::integer(parse_signed(advance(), negative));
  }
  if (token.kind == TokenKind::Float) {
    advance();
    double value = 0;
    auto [end, ec] =
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), value);
    if (ec != std::errc() || end != token.text.data() + token.text.size()) {
      fail(token, "number out of range: " + std::string(token.text),
           "floats must fit in a 64-bit double; write inf for infinity");
    }
    return Value::floating(negative ? -value : value);
  }
  if (at_word("inf")) {
    advance();
    double inf = std::numeric_limits<double>::infinity();
    return Value::floating(negative ? -inf : inf);
  }
  fail_expected("a literal (number, inf, true, false or string)", "");
}

std::string Parser::parse_string() {
  const Token& token = expect(TokenKind::String, "");
  std::string_view raw = token.text.substr(1, token.text.size() - 2);
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) {
      ++i;
      out += raw[i] == 'n' ? '\n' : raw[i];
    } else {
      out += raw[i];
    }
  }
  return out;
}

DType Parser::parse_dtype() {
  const Token& token = peek();
  if (token.kind != TokenKind::Ident) fail_expected("a dtype", "after ':'");
  std::optional<DType> dtype = dtype_from_name(token.text);
  if (!dtype) {
    std::span<const std::string_view> names(kDTypeNames.data(), kDTypeNames.size());
    std::optional<std::string_view> match = closest_match(token.text, names);
    std::string hint = match ? "did you mean '" + std::string(*match) + "'?"
                             : std::string(
                                   "dtypes are f8 bf16 f16 f32 f64 i1..i64 u1..u64 t1 t2 "
                                   "bool bitset");
    fail(token, "unknown dtype '" + std::string(token.text) + "'", hint);
  }
  advance();
  return *dtype;
}

// ---- dims, bounds, indices, references -------------------------------------------------------

std::vector<Dim> Parser::parse_dims_if_present() {
  std::vector<Dim> dims;
  if (!accept(TokenKind::LBracket)) return dims;
  if (accept(TokenKind::RBracket)) return dims;
  while (true) {
    Dim dim;
    while (true) {
      DimFactor factor;
      const Token& token = peek();
      if (token.kind == TokenKind::Int) {
        uint64_t value = parse_unsigned(advance());
        if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          fail(token, "dimension out of range: " + std::string(token.text));
        }
        factor.value = static_cast<int64_t>(value);
      } else if (token.kind == TokenKind::Ident && !is_keyword(token.text)) {
        factor.sizevar.assign(advance().text);
      } else {
        fail_expected("a dimension (an integer or a size variable)", "",
                      "write dims like [B, 3*D]");
      }
      dim.factors.push_back(std::move(factor));
      if (!accept(TokenKind::Star)) break;
    }
    dims.push_back(std::move(dim));
    if (accept(TokenKind::Comma)) continue;
    expect(TokenKind::RBracket, "after the dims", "separate dims with ','");
    return dims;
  }
}

Bound Parser::parse_bound(std::string_view context) {
  Bound bound;
  const Token& token = peek();
  if (token.kind == TokenKind::Int) {
    uint64_t value = parse_unsigned(advance());
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(token, "bound out of range: " + std::string(token.text));
    }
    bound.value = static_cast<int64_t>(value);
  } else if (token.kind == TokenKind::Ident && !is_keyword(token.text)) {
    bound.name.assign(advance().text);
  } else {
    fail_expected("an integer or a name", context);
  }
  return bound;
}

Index Parser::parse_index() {
  Index index;
  if (at(TokenKind::Ident) && !is_keyword(peek().text)) {
    index.name.assign(advance().text);
    if (at(TokenKind::Plus) || at(TokenKind::Minus)) {
      bool minus = advance().kind == TokenKind::Minus;
      const Token& token = expect(TokenKind::Int, minus ? "after '-'" : "after '+'");
      uint64_t value = parse_unsigned(token);
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        fail(token, "index offset out of range: " + std::string(token.text));
      }
      index.offset = minus ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    }
    return index;
  }
  if (at(TokenKind::Int) || at(TokenKind::Minus)) {
    index.offset = parse_int();
    return index;
  }
  fail_expected("an index (an integer or a name, optionally +/- an integer)", "");
}

Ref Parser::parse_ref(std::string_view what) {
  Ref ref;
  const Token& name = expect_name(what);
  ref.name.assign(name.text);
  ref.loc = location(name);
  if (accept(TokenKind::LBracket)) {
    while (true) {
      ref.indices.push_back(parse_index());
      if (accept(TokenKind::Comma)) continue;
      expect(TokenKind::RBracket, "after the indices",
             at(TokenKind::DotDot) ? "slices are only allowed in cache accesses and op outputs"
                                   : "separate indices with ','");
      break;
    }
  }
  return ref;
}

Access Parser::parse_access(std::string_view what) {
  Access access;
  const Token& name = expect_name(what);
  access.name.assign(name.text);
  access.loc = location(name);
  if (!accept(TokenKind::LBracket)) return access;
  access.has_brackets = true;
  if (accept(TokenKind::RBracket)) return access;
  while (true) {
    Slot slot;
    if (at(TokenKind::Comma) || at(TokenKind::RBracket)) {
      slot.kind = Slot::Kind::All;
    } else {
      if (!at(TokenKind::DotDot)) {
        slot.kind = Slot::Kind::Index;
        slot.index = parse_index();
      }
      if (accept(TokenKind::DotDot)) {
        if (slot.kind == Slot::Kind::Index) slot.start = slot.index;
        slot.kind = Slot::Kind::Range;
        slot.index = Index{};
        if (!at(TokenKind::Comma) && !at(TokenKind::RBracket)) slot.end = parse_index();
      }
    }
    access.slots.push_back(std::move(slot));
    if (accept(TokenKind::Comma)) continue;
    expect(TokenKind::RBracket, "after the slots", "separate slots with ','");
    return access;
  }
}

}  // namespace oi::dsl
