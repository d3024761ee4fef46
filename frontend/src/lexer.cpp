// Hand-written scanner: one pass, no allocation per character.
#include "lexer.hpp"

namespace oi::dsl {

namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}

// Length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF), or 0 if there is none.
size_t utf8_sequence_length(std::string_view s) {
  auto byte = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto continuation = [&](size_t i) { return (byte(i) & 0xC0u) == 0x80u; };
  unsigned lead = byte(0);
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    unsigned second = byte(1);
    if (lead == 0xE0 && second < 0xA0) return 0;
    if (lead == 0xED && second > 0x9F) return 0;
    return continuation(1) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    unsigned second = byte(1);
    if (lead == 0xF0 && second < 0x90) return 0;
    if (lead == 0xF4 && second > 0x8F) return 0;
    return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool run(std::vector<Token>& tokens, LexError& error) {
    tokens.reserve(text_.size() / 3 + 1);
    while (true) {
      if (!skip_space_and_comments(error)) return finish(tokens, false);
      if (pos_ >= text_.size()) return finish(tokens, true);
      Token token;
      token.line = line_;
      token.col = col();
      if (!scan_token(token, error)) return finish(tokens, false);
      tokens.push_back(token);
    }
  }

 private:
  bool finish(std::vector<Token>& tokens, bool ok) {
    Token end;
    end.line = line_;
    end.col = col();
    tokens.push_back(end);
    return ok;
  }

  uint32_t col() const { return static_cast<uint32_t>(pos_ - line_start_ + 1); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void newline_at(size_t newline_pos) {
    ++line_;
    line_start_ = newline_pos + 1;
  }

  bool fail(LexError& error, uint32_t line, uint32_t col, std::string_view message,
            std::string_view hint = {}) {
    error = {line, col, message, hint};
    return false;
  }

  bool skip_space_and_comments(LexError& error) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        newline_at(pos_);
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && peek(1) == '*') {
        uint32_t line = line_, start_col = col();
        pos_ += 2;
        while (true) {
          if (pos_ >= text_.size()) {
            return fail(error, line, start_col, "unterminated block comment",
                        "close it with '*/' (block comments do not nest)");
          }
          if (text_[pos_] == '*' && peek(1) == '/') {
            pos_ += 2;
            break;
          }
          if (text_[pos_] == '\n') newline_at(pos_);
          ++pos_;
        }
      } else {
        break;
      }
    }
    return true;
  }

  void take(Token& token, TokenKind kind, size_t length) {
    token.kind = kind;
    token.text = text_.substr(pos_, length);
    pos_ += length;
  }

  bool scan_token(Token& token, LexError& error) {
    char c = text_[pos_];
    if (is_ident_start(c)) {
      size_t end = pos_ + 1;
      while (end < text_.size() && is_ident_char(text_[end])) ++end;
      take(token, TokenKind::Ident, end - pos_);
      return true;
    }
    if (is_digit(c)) return scan_number(token, error);
    if (c == '"') return scan_string(token, error);
    switch (c) {
      case '{':
        take(token, TokenKind::LBrace, 1);
        return true;
      case '}':
        take(token, TokenKind::RBrace, 1);
        return true;
      case '(':
        take(token, TokenKind::LParen, 1);
        return true;
      case ')':
        take(token, TokenKind::RParen, 1);
        return true;
      case '[':
        take(token, TokenKind::LBracket, 1);
        return true;
      case ']':
        take(token, TokenKind::RBracket, 1);
        return true;
      case ',':
        take(token, TokenKind::Comma, 1);
        return true;
      case ';':
        take(token, TokenKind::Semicolon, 1);
        return true;
      case ':':
        take(token, TokenKind::Colon, 1);
        return true;
      case '=':
        take(token, TokenKind::Equals, 1);
        return true;
      case '@':
        take(token, TokenKind::At, 1);
        return true;
      case '*':
        take(token, TokenKind::Star, 1);
        return true;
      case '+':
        take(token, TokenKind::Plus, 1);
        return true;
      case '-':
        take(token, TokenKind::Minus, 1);
        return true;
      case '.':
        take(token, peek(1) == '.' ? TokenKind::DotDot : TokenKind::Dot, peek(1) == '.' ? 2 : 1);
        return true;
      case '>':
        if (peek(1) == '>') {
          take(token, TokenKind::Shift, 2);
          return true;
        }
        return fail(error, line_, col(), "unexpected character '>'",
                    "outputs are written with '>>'");
      default:
        break;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      return fail(error, line_, col(), "unexpected non-ASCII character",
                  "identifiers are [A-Za-z_][A-Za-z0-9_]*; use @ref(\"...\") for other names");
    }
    return fail(error, line_, col(), "unexpected character");
  }

  // Digits, then an optional fraction (a '.' followed by a digit, so `0..4` stays a range)
  // and an optional exponent.
  bool scan_number(Token& token, LexError& error) {
    size_t end = pos_;
    while (end < text_.size() && is_digit(text_[end])) ++end;
    bool is_float = false;
    if (end + 1 < text_.size() && text_[end] == '.' && is_digit(text_[end + 1])) {
      is_float = true;
      ++end;
      while (end < text_.size() && is_digit(text_[end])) ++end;
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      size_t exp = end + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
      if (exp >= text_.size() || !is_digit(text_[exp])) {
        uint32_t at = static_cast<uint32_t>(end - line_start_ + 1);
        return fail(error, line_, at, "malformed number: the exponent has no digits",
                    "write exponents like 1e-6 or 2.5E+3");
      }
      while (exp < text_.size() && is_digit(text_[exp])) ++exp;
      end = exp;
      is_float = true;
    }
    if (end < text_.size() && is_ident_start(text_[end])) {
      uint32_t at = static_cast<uint32_t>(end - line_start_ + 1);
      return fail(error, line_, at, "malformed number: a letter follows the digits",
                  "identifiers cannot start with a digit");
    }
    take(token, is_float ? TokenKind::Float : TokenKind::Int, end - pos_);
    return true;
  }

  bool scan_string(Token& token, LexError& error) {
    size_t end = pos_ + 1;
    while (true) {
      if (end >= text_.size() || text_[end] == '\n') {
        return fail(error, line_, col(), "unterminated string",
                    "close it with '\"' on the same line");
      }
      if (text_[end] == '"') break;
      if (static_cast<unsigned char>(text_[end]) >= 0x80) {
        size_t length = utf8_sequence_length(text_.substr(end));
        if (length == 0) {
          uint32_t at = static_cast<uint32_t>(end - line_start_ + 1);
          return fail(error, line_, at, "string is not valid UTF-8");
        }
        end += length;
        continue;
      }
      if (text_[end] == '\\') {
        char next = end + 1 < text_.size() ? text_[end + 1] : '\0';
        if (next != '"' && next != '\\' && next != 'n') {
          uint32_t at = static_cast<uint32_t>(end - line_start_ + 1);
          return fail(error, line_, at, "unknown escape in string",
                      "the escapes are \\\", \\\\ and \\n");
        }
        end += 2;
        continue;
      }
      ++end;
    }
    take(token, TokenKind::String, end + 1 - pos_);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

std::string_view describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::Ident:
      return "an identifier";
    case TokenKind::Int:
      return "an integer";
    case TokenKind::Float:
      return "a number";
    case TokenKind::String:
      return "a string";
    case TokenKind::LBrace:
      return "'{'";
    case TokenKind::RBrace:
      return "'}'";
    case TokenKind::LParen:
      return "'('";
    case TokenKind::RParen:
      return "')'";
    case TokenKind::LBracket:
      return "'['";
    case TokenKind::RBracket:
      return "']'";
    case TokenKind::Comma:
      return "','";
    case TokenKind::Semicolon:
      return "';'";
    case TokenKind::Colon:
      return "':'";
    case TokenKind::Equals:
      return "'='";
    case TokenKind::At:
      return "'@'";
    case TokenKind::Star:
      return "'*'";
    case TokenKind::Plus:
      return "'+'";
    case TokenKind::Minus:
      return "'-'";
    case TokenKind::Dot:
      return "'.'";
    case TokenKind::DotDot:
      return "'..'";
    case TokenKind::Shift:
      return "'>>'";
    case TokenKind::End:
      return "end of input";
  }
  return "a token";
}

bool tokenize(std::string_view text, std::vector<Token>& tokens, LexError& error) {
  return Scanner(text).run(tokens, error);
}

}  // namespace oi::dsl
