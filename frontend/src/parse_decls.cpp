// Memory sections and declarations with their attributes (dsl.md "Memory").
#include "openinfer/diagnostics.hpp"
#include "parser.hpp"

namespace oi::dsl {

void Parser::parse_section(MemoryKind memory) {
  const Token& keyword = advance();
  expect(TokenKind::LBrace, "after '" + std::string(keyword.text) + "'");
  while (!accept(TokenKind::RBrace)) {
    if (at(TokenKind::End)) {
      fail(keyword, "unterminated '" + std::string(keyword.text) + "' section",
           "close the section with '}'");
    }
    graph_.decls.push_back(parse_decl(memory));
  }
}

VarDecl Parser::parse_decl(MemoryKind memory) {
  VarDecl decl;
  decl.memory = memory;
  const Token& name = expect_name("a variable name");
  decl.name.assign(name.text);
  decl.loc = location(name);
  if (accept(TokenKind::LParen)) {
    while (true) {
      decl.indices.emplace_back(expect_name("an index name").text);
      if (accept(TokenKind::Comma)) continue;
      expect(TokenKind::RParen, "after the table indices", "separate indices with ','");
      break;
    }
  }
  expect(TokenKind::Colon, "after the variable name", "declarations read `name: f32[D];`");
  decl.dtype = parse_dtype();
  decl.dims = parse_dims_if_present();
  while (at(TokenKind::At)) parse_attribute(decl);
  if (!at(TokenKind::Semicolon)) {
    std::string_view hint = at(TokenKind::Ident)
                                ? "attributes start with '@', e.g. @pattern(\"W.{l}\")"
                                : "end the declaration with ';'";
    fail_expected("';'", "after the declaration", hint);
  }
  advance();
  return decl;
}

void Parser::parse_attribute(VarDecl& decl) {
  const Token& at_sign = advance();
  const Token& name_token = peek();
  if (name_token.kind != TokenKind::Ident) fail_expected("an attribute name", "after '@'");
  advance();
  std::string_view name = name_token.text;
  auto duplicate = [&] {
    fail(name_token, "duplicate attribute '@" + std::string(name) + "' on '" + decl.name + "'");
  };

  if (name == "init") {
    if (decl.init) duplicate();
    expect(TokenKind::LParen, "after '@init'");
    decl.init = parse_literal();
    expect(TokenKind::RParen, "after the @init value");
  } else if (name == "ref" || name == "pattern") {
    std::optional<std::string>& slot = name == "ref" ? decl.ref : decl.pattern;
    if (slot) duplicate();
    expect(TokenKind::LParen, "after '@" + std::string(name) + "'");
    if (!at(TokenKind::String)) {
      fail_expected("a string", "in '@" + std::string(name) + "'",
                    name == "ref" ? "write @ref(\"model.name\")" : "write @pattern(\"W.{l}\")");
    }
    slot = parse_string();
    expect(TokenKind::RParen, "after the string");
  } else if (name == "table") {
    if (decl.table) duplicate();
    decl.table = true;
  } else if (name == "fixed") {
    if (!decl.fixed.empty()) duplicate();
    expect(TokenKind::LParen, "after '@fixed'");
    while (true) {
      FixedBound fixed;
      fixed.index.assign(expect_name("an index name").text);
      expect(TokenKind::Equals, "after the index name", "write @fixed(i=1024, j=D)");
      fixed.bound = parse_bound("as the bound");
      decl.fixed.push_back(std::move(fixed));
      if (accept(TokenKind::Comma)) continue;
      expect(TokenKind::RParen, "after the bounds");
      break;
    }
  } else if (name == "auto_dim") {
    if (!decl.auto_dim.empty()) duplicate();
    expect(TokenKind::LParen, "after '@auto_dim'");
    while (true) {
      decl.auto_dim.emplace_back(expect_name("an index name").text);
      if (accept(TokenKind::Comma)) continue;
      expect(TokenKind::RParen, "after the indices");
      break;
    }
  } else {
    Attribute attribute;
    attribute.name.assign(name);
    attribute.loc = location(at_sign);
    if (accept(TokenKind::LParen)) {
      while (true) {
        attribute.args.push_back(parse_literal());
        if (accept(TokenKind::Comma)) continue;
        expect(TokenKind::RParen, "after the attribute's arguments");
        break;
      }
    }
    decl.other_attributes.push_back(std::move(attribute));
  }
}

}  // namespace oi::dsl
