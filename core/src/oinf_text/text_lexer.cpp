#include "text_lexer.hpp"

#include "openinfer/error.hpp"

namespace oi::oinf_text {
namespace {

bool is_word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '+';
}

std::string describe(char c) {
  if (c >= 0x21 && c < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
}

}  // namespace

std::string where_of(const std::string& origin, TextPos pos) {
  return origin + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.col);
}

std::vector<Token> tokenize(std::string_view text, const std::string& origin) {
  std::vector<Token> tokens;
  TextPos pos;
  size_t i = 0;
  int brace_depth = 0;
  auto advance = [&](size_t n) {
    i += n;
    pos.col += static_cast<uint32_t>(n);
  };
  auto emit_newline = [&] {
    if (brace_depth == 0 && !tokens.empty() && tokens.back().kind != TokenKind::Newline)
      tokens.push_back({TokenKind::Newline, text.substr(i, 0), pos});
  };
  while (i < text.size()) {
    const char c = text[i];
    const TextPos start = pos;
    if (c == '\n') {
      emit_newline();
      ++i;
      ++pos.line;
      pos.col = 1;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      advance(1);
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
    } else if (c == '"') {
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"' && text[end] != '\n') ++end;
      if (end >= text.size() || text[end] != '"')
        throw input_error("unterminated string", where_of(origin, start));
      tokens.push_back({TokenKind::String, text.substr(i + 1, end - i - 1), start});
      advance(end + 1 - i);
    } else if (c == ':' && i + 1 < text.size() && text[i + 1] == '=') {
      tokens.push_back({TokenKind::Punct, text.substr(i, 2), start});
      advance(2);
    } else if (c == ':' || c == '=' || c == '@' || c == '[' || c == ']' || c == '{' || c == '}' ||
               c == ',') {
      if (c == '{') ++brace_depth;
      if (c == '}' && brace_depth > 0) --brace_depth;
      tokens.push_back({TokenKind::Punct, text.substr(i, 1), start});
      advance(1);
    } else if (is_word_char(c)) {
      size_t end = i;
      while (end < text.size() && is_word_char(text[end])) ++end;
      // nan(0xHEX): the parenthesised bit pattern belongs to the word.
      if (text.substr(i, end - i) == "nan" && end < text.size() && text[end] == '(') {
        const size_t close = text.find(')', end);
        const size_t line_end = text.find('\n', end);
        if (close == std::string_view::npos || close > line_end)
          throw input_error("malformed NaN: write nan(0xHEX)", where_of(origin, start));
        end = close + 1;
      }
      tokens.push_back({TokenKind::Word, text.substr(i, end - i), start});
      advance(end - i);
    } else {
      throw input_error("unexpected character " + describe(c), where_of(origin, start));
    }
  }
  if (brace_depth > 0) brace_depth = 0;
  emit_newline();
  tokens.push_back({TokenKind::End, text.substr(text.size(), 0), pos});
  return tokens;
}

}  // namespace oi::oinf_text
