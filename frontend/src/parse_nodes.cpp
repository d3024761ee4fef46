// Blocks and their nodes (dsl.md "Blocks and nodes", "Concurrency").
#include "openinfer/diagnostics.hpp"
#include "parser.hpp"

namespace oi::dsl {

Block Parser::parse_block() {
  const Token& keyword = advance();
  Block block;
  block.loc = location(keyword);
  block.name.assign(expect_name("a block name").text);
  expect(TokenKind::LBrace, "after the block name");
  block_ = &block;
  parse_nodes_until_brace(block.nodes, 0);
  block_ = nullptr;
  return block;
}

void Parser::parse_nodes_until_brace(std::vector<Node>& nodes, size_t loop_depth) {
  while (!accept(TokenKind::RBrace)) {
    if (at(TokenKind::End)) fail_expected("'}'", "to close the block");
    // `scope` is no keyword (it stays usable as a name): a node starting `scope NAME` is one.
    if (at_word("scope") && peek(1).kind == TokenKind::Ident) {
      parse_scope(nodes, loop_depth);
      continue;
    }
    // Parsed in place: a Node is large, so moving it costs more than parsing it.
    Node& node = nodes.emplace_back();
    node.scope = scope_;
    parse_node(node, loop_depth);
  }
}

void Parser::parse_node(Node& node, size_t loop_depth) {
  const Token& keyword = peek();
  node.loc = location(keyword);
  if (keyword.kind != TokenKind::Ident) {
    fail(keyword, "expected a node, found " + std::string(describe(keyword.kind)),
         keyword.kind == TokenKind::LBrace ? "blocks cannot nest; use `loop` or `branch`" : "");
  }
  std::string_view word = keyword.text;
  if (word == "cache" && peek(1).kind == TokenKind::Dot) {
    parse_cache_op(node);
    return;
  }
  advance();
  if (word == "assign") {
    node.kind = NodeKind::Assign;
    node.var.assign(expect_name("a variable name").text);
    expect(TokenKind::Colon, "after the variable name", "write `assign t: f32[B, D];`");
    node.dtype = parse_dtype();
    node.dims = parse_dims_if_present();
    expect(TokenKind::Semicolon, "after the assign");
  } else if (word == "op") {
    parse_op(node);
  } else if (word == "transfer") {
    node.kind = NodeKind::Transfer;
    node.inputs.push_back(parse_ref("the transfer's source"));
    expect(TokenKind::Shift, "after the transfer's source", "write `transfer a >> b;`");
    Ref dest = parse_ref("the transfer's destination");
    node.output.name = std::move(dest.name);
    node.output.loc = std::move(dest.loc);
    for (Index& index : dest.indices) {
      node.output.slots.push_back(Slot{Slot::Kind::Index, std::move(index), {}, {}});
    }
    node.output.has_brackets = !node.output.slots.empty();
    expect(TokenKind::Semicolon, "after the transfer");
  } else if (word == "loop") {
    parse_loop(node, loop_depth);
  } else if (word == "branch") {
    parse_branch(node);
  } else if (word == "return") {
    node.kind = NodeKind::Return;
    if (!at(TokenKind::Semicolon)) parse_name_list(node.names, "an output name");
    expect(TokenKind::Semicolon, "after return");
  } else if (word == "barrier") {
    node.kind = NodeKind::Barrier;
    expect(TokenKind::Semicolon, "after barrier");
  } else if (word == "dep") {
    parse_dep(node);
  } else if (word == "yield" || word == "await") {
    node.kind = word == "yield" ? NodeKind::Yield : NodeKind::Await;
    parse_name_list(node.names, "a variable name");
    expect(TokenKind::Semicolon, "after the variable list");
  } else {
    std::string hint = did_you_mean(word, {"assign", "op", "transfer", "cache", "loop", "branch",
                                           "return", "barrier", "dep", "yield", "await", "scope"});
    if (hint.empty()) {
      hint =
          "nodes start with assign, op, transfer, cache.*, loop, scope, branch, return, barrier, "
          "dep, yield or await";
    }
    fail(keyword, "unknown node '" + std::string(word) + "'", hint);
  }
}

void Parser::parse_name_list(std::vector<std::string>& names, std::string_view what) {
  while (true) {
    names.emplace_back(expect_name(what).text);
    if (!accept(TokenKind::Comma)) return;
  }
}

void Parser::parse_op(Node& node) {
  node.kind = NodeKind::Op;
  node.op.assign(expect_name("an op name").text);
  expect(TokenKind::LParen, "after the op name", "write `op add(a, b) >> out;`");
  if (!accept(TokenKind::RParen)) {
    while (true) {
      bool is_setting = at(TokenKind::Ident) && peek(1).kind == TokenKind::Equals;
      if (is_setting) {
        node.settings.push_back(parse_setting());
      } else {
        if (!node.settings.empty()) {
          fail(peek(), "expected a setting (name=value) after the settings",
               "positional inputs come before settings");
        }
        node.inputs.push_back(parse_ref("an input"));
      }
      if (accept(TokenKind::Comma)) continue;
      expect(TokenKind::RParen, "after the op's arguments", "separate arguments with ','");
      break;
    }
  }
  expect(TokenKind::Shift, "after the op's arguments",
         "every op writes its output: `op NAME(inputs, settings) >> output;`");
  node.output = parse_access("the op's output");
  expect(TokenKind::Semicolon, "after the op's output");
}

Setting Parser::parse_setting() {
  Setting setting;
  const Token& name = advance();
  setting.name.assign(name.text);
  setting.loc = location(name);
  advance();  // '='
  const Token& token = peek();
  if (token.kind == TokenKind::LBracket) {
    advance();
    std::vector<int64_t> ints;
    if (!accept(TokenKind::RBracket)) {
      while (true) {
        ints.push_back(parse_int());
        if (accept(TokenKind::Comma)) continue;
        expect(TokenKind::RBracket, "after the list", "lists hold integers: [0, 1, -1]");
        break;
      }
    }
    setting.value = Value::int_list(std::move(ints));
  } else if (token.kind == TokenKind::Ident && !is_keyword(token.text)) {
    advance();
    if (std::optional<DType> dtype = dtype_from_name(token.text)) {
      setting.value = Value::dtype_name(*dtype);
    } else {
      setting.value = Value::ident(std::string(token.text));
    }
  } else {
    setting.value = parse_literal();
  }
  return setting;
}

void Parser::parse_cache_op(Node& node) {
  advance();  // cache
  advance();  // '.'
  const Token& op = peek();
  std::string_view name = op.kind == TokenKind::Ident ? op.text : std::string_view();
  if (name == "read") {
    advance();
    node.kind = NodeKind::CacheRead;
    node.target = parse_access("the variable to read");
    expect(TokenKind::Shift, "after the cache access", "write `cache.read K[l, t] >> k;`");
    Access dest = parse_access("the destination");
    if (!dest.is_plain_ref()) {
      fail(peek(), "the destination of cache.read cannot be a slice", "read into a plain variable");
    }
    node.output = std::move(dest);
    expect(TokenKind::Semicolon, "after cache.read");
  } else if (name == "write") {
    advance();
    node.kind = NodeKind::CacheWrite;
    node.inputs.push_back(parse_ref("the value to write"));
    expect(TokenKind::Shift, "after the value", "write `cache.write v >> K[l, t];`");
    node.target = parse_access("the variable to write");
    expect(TokenKind::Semicolon, "after cache.write");
  } else if (name == "increment" || name == "decrement") {
    advance();
    node.kind = name == "increment" ? NodeKind::CacheIncrement : NodeKind::CacheDecrement;
    if (at(TokenKind::Int)) {
      node.amount = parse_int();
    }
    node.var.assign(expect_name("a persistent scalar").text);
    expect(TokenKind::Semicolon, "after the variable");
  } else if (name == "reset") {
    advance();
    node.kind = NodeKind::CacheReset;
    node.target = parse_access("the variable to reset");
    expect(TokenKind::Semicolon, "after cache.reset");
  } else {
    std::string hint = did_you_mean(name, {"read", "write", "increment", "decrement", "reset"});
    if (hint.empty()) hint = "cache operations are read, write, increment, decrement and reset";
    fail(op, "unknown cache operation 'cache." + std::string(op.text) + "'", hint);
  }
}

void Parser::parse_loop(Node& node, size_t loop_depth) {
  node.kind = NodeKind::Loop;
  if (loop_depth >= kMaxLoopDepth) {
    fail(node.loc, "loops nest too deeply (more than " + std::to_string(kMaxLoopDepth) + " levels)",
         "flatten the loops or split the work into blocks");
  }
  node.loop_name.assign(expect_name("a loop name").text);
  expect(TokenKind::LParen, "after the loop name", "write `loop layers (l in 0..L) { ... }`");
  node.var.assign(expect_name("a loop index").text);
  expect_word("in", "after the loop index");
  node.start = parse_bound("as the loop start");
  expect(TokenKind::DotDot, "between the loop bounds", "write `l in 0..L`");
  node.end = parse_bound("as the loop end");
  expect(TokenKind::RParen, "after the loop bounds");
  expect(TokenKind::LBrace, "to open the loop body");
  parse_nodes_until_brace(node.body, loop_depth + 1);
}

void Parser::parse_branch(Node& node) {
  node.kind = NodeKind::Branch;
  std::string first(expect_name("a condition or block name").text);
  if (accept(TokenKind::Semicolon)) {
    node.then_block = std::move(first);
    return;
  }
  node.cond = std::move(first);
  node.then_block.assign(expect_name("the block to run when true").text);
  if (at(TokenKind::Semicolon)) {
    fail_expected("the block to run when false", "",
                  "write `branch cond yes no;` or `branch name;`");
  }
  node.else_block.assign(expect_name("the block to run when false").text);
  expect(TokenKind::Semicolon, "after the branch");
}

void Parser::parse_scope(std::vector<Node>& nodes, size_t loop_depth) {
  const Token& keyword = advance();
  Scope scope;
  scope.loc = location(keyword);
  // Scopes nest as deep as loops may: every consumer's recursion over them stays bounded.
  if (scope_depth_ >= kMaxLoopDepth) {
    fail(scope.loc,
         "scopes nest too deeply (more than " + std::to_string(kMaxLoopDepth) + " levels)");
  }
  scope.name.assign(expect_name("a scope name").text);
  scope.parent = scope_;
  if (accept(TokenKind::LParen)) {
    while (!accept(TokenKind::RParen)) {
      if (!(at(TokenKind::Ident) && peek(1).kind == TokenKind::Equals)) {
        fail_expected("a hint (name=value)", "in the scope's hints",
                      "write `scope attention (fuse=false, placement=\"cpu\") { ... }`");
      }
      scope.hints.push_back(parse_setting());
      if (!accept(TokenKind::Comma) && !at(TokenKind::RParen)) {
        fail_expected("',' or ')'", "after the hint");
      }
    }
  }
  expect(TokenKind::LBrace, "to open the scope", "write `scope attention { ... }`");
  const int32_t outer = scope_;
  scope_ = static_cast<int32_t>(block_->scopes.size());
  block_->scopes.push_back(std::move(scope));
  ++scope_depth_;
  parse_nodes_until_brace(nodes, loop_depth);
  --scope_depth_;
  scope_ = outer;
}

std::string Parser::parse_dep_node_name(std::string_view context) {
  if (at_word("cache") && peek(1).kind == TokenKind::Dot) {
    advance();
    advance();
    const Token& op = peek();
    if (op.kind != TokenKind::Ident) fail_expected("a cache operation", "after 'cache.'");
    advance();
    return "cache." + std::string(op.text);
  }
  if (at_word("transfer")) return std::string(advance().text);
  const Token& name = peek();
  if (name.kind != TokenKind::Ident) fail_expected("a node name", context);
  return std::string(advance().text);
}

void Parser::parse_dep(Node& node) {
  node.kind = NodeKind::Dep;
  expect_word("after", "after 'dep'");
  expect(TokenKind::LParen, "after 'after'");
  node.dep_after = parse_dep_node_name("in after(...)");
  expect(TokenKind::RParen, "after the node name");
  expect_word("before", "after 'after(...)'");
  expect(TokenKind::LParen, "after 'before'");
  node.dep_before = parse_dep_node_name("in before(...)");
  expect(TokenKind::RParen, "after the node name");
  expect(TokenKind::Semicolon, "after the dep");
}

}  // namespace oi::dsl
