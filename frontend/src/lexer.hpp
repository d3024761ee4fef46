// Tokens of the graph language (dsl.md "Lexical"). The lexer turns the whole text into a token
// vector up front; token texts are views into the caller's source.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace oi::dsl {

enum class TokenKind {
  Ident,   // identifiers and keywords alike; the parser decides by context
  Int,     // unsigned decimal integer
  Float,   // 0.5, 1e-6, 2.5E+3
  String,  // text includes the quotes; escapes still encoded
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Semicolon,
  Colon,
  Equals,
  At,
  Star,
  Plus,
  Minus,
  Dot,
  DotDot,
  Shift,  // >>
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  uint32_t line = 1;
  uint32_t col = 1;
};

// How a token kind is named in messages: "'>>'", "an identifier", "end of input".
std::string_view describe(TokenKind kind);

struct LexError {
  uint32_t line = 0;
  uint32_t col = 0;
  std::string_view message;
  std::string_view hint;
};

// Tokenizes `text`. On a bad character, an unterminated string or block comment, returns false
// and fills `error`; `tokens` then holds what came before. The last token is always End.
bool tokenize(std::string_view text, std::vector<Token>& tokens, LexError& error);

}  // namespace oi::dsl
