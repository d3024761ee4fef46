// Recursive-descent parser of the graph language (dsl.md "Grammar"). One instance parses one
// text; errors throw oi::Error(ErrorKind::Input) at the first problem.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lexer.hpp"
#include "openinfer/graph.hpp"

namespace oi::dsl {

// Loops deeper than this are rejected, so recursion (here and in every consumer) stays bounded.
inline constexpr size_t kMaxLoopDepth = 64;

class Parser {
 public:
  Parser(std::string_view text, std::string_view origin);
  Graph parse();

 private:
  // Token cursor.
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool at_word(std::string_view word) const;
  bool accept(TokenKind kind);
  const Token& expect(TokenKind kind, std::string_view context, std::string_view hint = {});
  void expect_word(std::string_view word, std::string_view context);
  // An identifier that is not a reserved keyword; `what` names it in the error.
  const Token& expect_name(std::string_view what);

  SourceLocation location(const Token& token) const;
  [[noreturn]] void fail(const Token& token, std::string message, std::string_view hint = {});
  [[noreturn]] void fail(const SourceLocation& loc, std::string message,
                         std::string_view hint = {});
  [[noreturn]] void fail_expected(std::string_view expected, std::string_view context,
                                  std::string_view hint = {});

  // Shared pieces (parser.cpp).
  int64_t parse_int();  // "-"? INT
  int64_t parse_signed(const Token& int_token, bool negative);
  uint64_t parse_unsigned(const Token& token);
  Value parse_literal();  // "-"? (INT | FLOAT | inf) | true | false | STRING
  std::string parse_string();
  DType parse_dtype();
  std::vector<Dim> parse_dims_if_present();
  Bound parse_bound(std::string_view context);
  Index parse_index();
  Ref parse_ref(std::string_view what);
  Access parse_access(std::string_view what);

  // Declarations (parse_decls.cpp).
  void parse_section(MemoryKind memory);
  VarDecl parse_decl(MemoryKind memory);
  void parse_attribute(VarDecl& decl);

  // Blocks and nodes (parse_nodes.cpp).
  Block parse_block();
  void parse_nodes_until_brace(std::vector<Node>& nodes, size_t loop_depth);
  void parse_node(Node& node, size_t loop_depth);
  void parse_op(Node& node);
  Setting parse_setting();
  void parse_cache_op(Node& node);
  void parse_loop(Node& node, size_t loop_depth);
  void parse_branch(Node& node);
  void parse_dep(Node& node);
  // `scope NAME (hints) { nodes }`: the nodes go into `nodes`, each marked with the scope.
  void parse_scope(std::vector<Node>& nodes, size_t loop_depth);
  std::string parse_dep_node_name(std::string_view context);
  void parse_name_list(std::vector<std::string>& names, std::string_view what);

  std::string_view text_;
  std::string origin_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Graph graph_;
  Block* block_ = nullptr;  // the block being parsed (its scope list grows)
  int32_t scope_ = -1;      // the innermost open scope
  size_t scope_depth_ = 0;
};

bool is_keyword(std::string_view word);

}  // namespace oi::dsl
