// cache.reset of a window of table entries in generated C (dsl.md "Blocks and nodes": `K[l,
// a..b]`, `K[l, ..-1]`, `K[, t]` empty exactly the entries the same access reads, checked as a
// read is; the sizes stay), for persistent tables and tables of @auto_dim matrices, as the
// simulator's Memory::reset_table.
#pragma once

#include <functional>
#include <string>

#include "auto_dim.hpp"
#include "tables.hpp"

namespace oi::c_emitter {

// Whether the access is a window: among the first `table_rank` slots, a slice with a start or
// an end, or a whole axis before a single index. Otherwise the leading single indices choose
// what is reset (`K`, `K[l]`, `K[l, t]`).
bool reset_is_window(const AccessText& access, size_t table_rank);

// What the reset code needs of the generator: the C of an index name, the source position
// for messages ("g.oi:12:3"), the program's name (NAME_ERR_RUN), the statement that ends the
// step after s->failed is set, the indent.
struct ResetContext {
  std::function<std::string(const std::string&)> index_c;
  std::string at, prefix, stop, indent;
};

// The window reset of table `table` (s->t_NAME), oi_tab_reset_span.
std::string table_reset_window(const TableDecl& table, const AccessText& access,
                               const ResetContext& ctx);
// The window reset of a table of matrices (s->a_NAME): the matrices whose @table key the
// window holds back to fresh (oi_ad_reset); `count_c` is the C of how many s->a_NAME holds.
std::string auto_reset_window(const AutoDimDecl& m, const AccessText& access,
                              const std::string& count_c, const ResetContext& ctx);

}  // namespace oi::c_emitter
