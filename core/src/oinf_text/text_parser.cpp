// `pack`'s reader of the text form: entries in any order, sizevar names in dims, resolved
// once the whole text is read. Every error names the text's line and column.
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/oinf_text.hpp"
#include "text_lexer.hpp"

namespace oi {
namespace oinf_text {
namespace {

struct ValueList {
  TextPos open;  // the `{`, or the single value of a rank-0 entry
  std::vector<uint64_t> raws;
};

struct PendingTensor {
  Token name;
  DType dtype;
  TextPos dims_pos;
  std::vector<Token> dims;  // numbers or sizevar names
  std::optional<ValueList> values;
};

struct PendingMeta {
  Token key;
  MetaValue value;                     // complete for strings, bitsets and scalars
  std::optional<PendingTensor> array;  // an ndarray, resolved with the tensors
};

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin)
      : origin_(origin), tokens_(tokenize(text, origin)) {}

  ModelWriter run() {
    while (peek().kind != TokenKind::End) {
      if (peek().kind == TokenKind::Newline) {
        ++at_;
        continue;
      }
      parse_entry();
      const Token& t = peek();
      if (t.kind != TokenKind::Newline && t.kind != TokenKind::End)
        fail(t.pos, "unexpected " + describe(t) + " after the entry (one entry per line)");
    }
    return build();
  }

 private:
  const Token& peek() const { return tokens_[at_]; }
  const Token& next() {
    const Token& t = tokens_[at_];
    if (t.kind != TokenKind::End) ++at_;
    return t;
  }
  bool at_punct(std::string_view p) const {
    return peek().kind == TokenKind::Punct && peek().text == p;
  }

  [[noreturn]] void fail(TextPos pos, const std::string& message) const {
    throw input_error(message, where_of(origin_, pos));
  }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::Newline:
        return "end of line";
      case TokenKind::End:
        return "end of text";
      case TokenKind::String:
        return "string \"" + std::string(t.text) + "\"";
      default:
        return "'" + std::string(t.text) + "'";
    }
  }

  const Token& expect_punct(std::string_view p, std::string_view context) {
    if (!at_punct(p))
      fail(peek().pos, "expected '" + std::string(p) + "' " + std::string(context) + ", got " +
                           describe(peek()));
    return next();
  }
  const Token& expect_word(std::string_view what) {
    if (peek().kind != TokenKind::Word)
      fail(peek().pos, "expected " + std::string(what) + ", got " + describe(peek()));
    return next();
  }
  // `noun` is "name" or "metadata key".
  const Token& expect_name(std::string_view noun) {
    const Token& t = expect_word("a " + std::string(noun));
    if (!is_valid_oinf_name(t.text))
      fail(t.pos, "'" + std::string(t.text) + "' is not a valid " + std::string(noun) +
                      ": use only [A-Za-z0-9._-]");
    return t;
  }

  DType expect_dtype() {
    const Token& t = expect_word("a dtype");
    auto dtype = dtype_from_name(t.text);
    if (!dtype) fail(t.pos, "unknown dtype '" + std::string(t.text) + "'");
    return *dtype;
  }

  void parse_entry() {
    if (at_punct("@")) {
      next();
      parse_metadata(expect_name("metadata key"));
      return;
    }
    const Token& name = expect_name("name");
    if (at_punct(":=")) {
      next();
      parse_sizevar(name);
      return;
    }
    expect_punct(":", "after the name");
    if (peek().kind == TokenKind::Word && peek().text == "str") {
      next();  // compatibility: a `str` metadata entry written without the `@`
      parse_string_meta(name);
      return;
    }
    if (peek().kind == TokenKind::Word && peek().text == "ndarray")
      fail(peek().pos, "ndarray is for metadata entries: start the line with '@'");
    parse_tensor(name);
  }

  void parse_sizevar(const Token& name) {
    const Token& value = expect_word("the size variable's value");
    auto v = parse_u64(value.text);
    if (!v)
      fail(value.pos, "size variable value must be an unsigned 64-bit integer, got '" +
                          std::string(value.text) + "'");
    if (auto [it, fresh] = sizevar_lines_.emplace(std::string(name.text), name.pos.line); !fresh)
      fail(name.pos, "duplicate size variable '" + std::string(name.text) + "' (first on line " +
                         std::to_string(it->second) + ")");
    sizevars_.emplace_back(std::string(name.text), *v);
  }

  void add_meta(PendingMeta meta) {
    const Token& key = meta.key;
    if (auto [it, fresh] = meta_lines_.emplace(std::string(key.text), key.pos.line); !fresh)
      fail(key.pos, "duplicate metadata key '" + std::string(key.text) + "' (first on line " +
                        std::to_string(it->second) + ")");
    metas_.push_back(std::move(meta));
  }

  void parse_string_meta(const Token& key) {
    expect_punct("=", "before the string value");
    if (peek().kind != TokenKind::String)
      fail(peek().pos, "expected a string in double quotes, got " + describe(peek()));
    const Token& s = next();
    if (!is_valid_oinf_name(s.text))
      fail(s.pos, "string value must be at least one of the characters [A-Za-z0-9._-]");
    add_meta({key, MetaValue::string(std::string(s.text)), std::nullopt});
  }

  void parse_bitset_meta(const Token& key) {
    const TextPos open = peek().pos;
    if (!at_punct("[")) fail(open, "a bitset metadata entry needs a bit count: bitset[N] = 0b...");
    next();
    const Token& count_tok = expect_word("the bit count");
    auto count = parse_u64(count_tok.text);
    if (!count || *count > UINT32_MAX)
      fail(count_tok.pos, "bit count must be an unsigned 32-bit integer");
    expect_punct("]", "after the bit count");
    expect_punct("=", "before the bits");
    const Token& bits = expect_word("0b followed by the bits");
    std::string_view digits = bits.text;
    if (!digits.starts_with("0b") || digits.find_first_not_of("01", 2) != std::string_view::npos)
      fail(bits.pos, "bitset value must be 0b followed by binary digits, bit 0 first");
    digits.remove_prefix(2);
    if (digits.size() != *count)
      fail(bits.pos, "bitset[" + std::to_string(*count) + "] needs exactly " +
                         std::to_string(*count) + " binary digits, got " +
                         std::to_string(digits.size()));
    std::vector<uint8_t> bytes((*count + 7) / 8, 0);
    for (size_t i = 0; i < digits.size(); ++i)
      if (digits[i] == '1') bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    add_meta(
        {key, MetaValue::bitset(static_cast<uint32_t>(*count), std::move(bytes)), std::nullopt});
  }

  void parse_metadata(const Token& key) {
    expect_punct(":", "after the metadata key");
    const Token& type = expect_word("a metadata type (a dtype, str, bitset[N] or ndarray)");
    if (type.text == "str") return parse_string_meta(key);
    if (type.text == "bitset") return parse_bitset_meta(key);
    if (type.text == "ndarray") {
      PendingTensor array{key, expect_dtype(), peek().pos, {}, std::nullopt};
      if (!at_punct("[")) fail(peek().pos, "an ndarray needs dims: ndarray DTYPE[DIMS]");
      array.dims = parse_dims();
      expect_punct("=", "before the ndarray's values");
      if (!at_punct("{")) fail(peek().pos, "an ndarray's values go in { }");
      array.values = parse_values(array.dtype);
      add_meta({key, MetaValue{}, std::move(array)});
      return;
    }
    auto dtype = dtype_from_name(type.text);
    if (!dtype) fail(type.pos, "unknown metadata type '" + std::string(type.text) + "'");
    expect_punct("=", "before the metadata value");
    const Token& value = expect_word("a value");
    Tensor scalar(*dtype, Shape{});
    scalar.set_raw(0, element(*dtype, value));
    add_meta({key, MetaValue::scalar(std::move(scalar)), std::nullopt});
  }

  void parse_tensor(const Token& name) {
    PendingTensor t{name, expect_dtype(), peek().pos, {}, std::nullopt};
    const bool has_dims = at_punct("[");
    if (has_dims) t.dims = parse_dims();
    if (at_punct("=")) {
      next();
      if (at_punct("{")) {
        t.values = parse_values(t.dtype);
      } else {
        const Token& value = expect_word("a value or { values }");
        if (has_dims && !t.dims.empty())
          fail(value.pos, "a tensor with dims takes its values in { }");
        t.values = ValueList{value.pos, {element(t.dtype, value)}};
      }
    }
    if (auto [it, fresh] = tensor_lines_.emplace(std::string(name.text), name.pos.line); !fresh)
      fail(name.pos, "duplicate tensor '" + std::string(name.text) + "' (first on line " +
                         std::to_string(it->second) + ")");
    tensors_.push_back(std::move(t));
  }

  std::vector<Token> parse_dims() {
    std::vector<Token> dims;
    next();  // [
    if (at_punct("]")) {
      next();
      return dims;
    }
    while (true) {
      dims.push_back(expect_word("a dim (a number or a size variable)"));
      if (at_punct("]")) break;
      expect_punct(",", "between dims");
    }
    next();  // ]
    return dims;
  }

  ValueList parse_values(DType dtype) {
    const Token& open = next();  // {
    ValueList list{open.pos, {}};
    while (!at_punct("}")) {
      if (peek().kind == TokenKind::End) fail(open.pos, "'{' is never closed");
      const Token& value = expect_word("a value");
      list.raws.push_back(element(dtype, value));
      if (at_punct("}")) break;
      // A missing `,` at a line break most likely means a missing `}`.
      if (peek().kind == TokenKind::End || (!at_punct(",") && peek().pos.line > value.pos.line))
        fail(open.pos, "'{' is never closed");
      expect_punct(",", "between values");
    }
    next();  // }
    return list;
  }

  uint64_t element(DType dtype, const Token& token) const {
    try {
      return parse_element(dtype, token.text);
    } catch (const Error& e) {
      fail(token.pos, e.what());
    }
  }

  Shape resolve_dims(const PendingTensor& t) const {
    Shape shape;
    for (const Token& d : t.dims) {
      if (auto n = parse_u64(d.text)) {
        shape.push_back(*n);
        continue;
      }
      if (d.text.find_first_not_of("0123456789") == std::string_view::npos)
        fail(d.pos, "dim " + std::string(d.text) + " does not fit u64");
      auto it = sizevar_values_.find(std::string(d.text));
      if (it == sizevar_values_.end())
        fail(d.pos, "unknown size variable '" + std::string(d.text) + "' in dims");
      shape.push_back(it->second);
    }
    if (!checked_numel(shape) || !storage_bytes(t.dtype, *checked_numel(shape)))
      fail(t.dims_pos, "dims of '" + std::string(t.name.text) + "' overflow 64 bits");
    return shape;
  }

  Tensor resolve_data(const PendingTensor& t, const Shape& shape) const {
    const ValueList& v = *t.values;
    const uint64_t numel = *checked_numel(shape);
    if (v.raws.size() != numel)
      fail(v.open, "'" + std::string(t.name.text) + "' has " + std::to_string(v.raws.size()) +
                       " values but " + std::string(dtype_name(t.dtype)) + dims_text(shape) +
                       " holds " + std::to_string(numel));
    Tensor tensor(t.dtype, shape);
    for (uint64_t i = 0; i < numel; ++i) tensor.set_raw(i, v.raws[i]);
    return tensor;
  }

  static std::string dims_text(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  }

  ModelWriter build() {
    for (const auto& [name, value] : sizevars_) sizevar_values_.emplace(name, value);
    ModelWriter writer;
    for (const auto& [name, value] : sizevars_) writer.add_sizevar(name, value);
    for (auto& meta : metas_) {
      if (meta.array) {
        const Shape shape = resolve_dims(*meta.array);
        meta.value = MetaValue::ndarray(resolve_data(*meta.array, shape));
      }
      writer.add_metadata(std::string(meta.key.text), std::move(meta.value));
    }
    for (const PendingTensor& t : tensors_) {
      const Shape shape = resolve_dims(t);
      if (t.values)
        writer.add_tensor(std::string(t.name.text), resolve_data(t, shape));
      else
        writer.add_declaration(std::string(t.name.text), t.dtype, shape);
    }
    return writer;
  }

  const std::string& origin_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  std::vector<std::pair<std::string, uint64_t>> sizevars_;
  std::map<std::string, uint64_t> sizevar_values_;
  std::map<std::string, uint32_t> sizevar_lines_, meta_lines_, tensor_lines_;
  std::vector<PendingMeta> metas_;
  std::vector<PendingTensor> tensors_;
};

}  // namespace
}  // namespace oinf_text

ModelWriter parse_oinf_text(std::string_view text, const std::string& origin) {
  return oinf_text::Parser(text, origin).run();
}

}  // namespace oi
