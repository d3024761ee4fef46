// Tokens of the OINF text form. Entries end at a newline, except inside `{ }`, so a long
// value list may span lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oi::oinf_text {

struct TextPos {
  uint32_t line = 1;
  uint32_t col = 1;
};

enum class TokenKind {
  Word,     // a name, number, dtype or keyword: [A-Za-z0-9._+-]+, or nan(0xHEX)
  String,   // "..." (text holds the contents, without the quotes)
  Punct,    // : := = @ [ ] { } ,
  Newline,  // end of an entry
  End,
};

struct Token {
  TokenKind kind;
  std::string_view text;
  TextPos pos;
};

// Splits the whole text into tokens; comments and blank lines disappear. Throws oi::Error
// with where = "ORIGIN:LINE:COL" on a character that cannot start a token or an unclosed
// string.
std::vector<Token> tokenize(std::string_view text, const std::string& origin);

std::string where_of(const std::string& origin, TextPos pos);

}  // namespace oi::oinf_text
