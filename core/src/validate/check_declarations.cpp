// Level 1 checks of the memory sections: where tables may live, their attributes, @init values.
#include <algorithm>
#include <cmath>

#include "graph_index.hpp"
#include "literal_fit.hpp"

namespace oi::validation {
namespace {

bool has_index(const VarDecl& d, std::string_view name) {
  return std::find(d.indices.begin(), d.indices.end(), name) != d.indices.end();
}

void check_table_attributes(const VarDecl& d, Diagnostics& diag) {
  const std::string section(memory_kind_name(d.memory));
  const bool persistent = d.memory == MemoryKind::Persistent;
  if (!d.indices.empty() && !persistent && d.memory != MemoryKind::Volatile &&
      d.memory != MemoryKind::Constant)
    diag.error(d.loc, "prefix table '" + d.name +
                          "' must be declared in volatile or constant memory, not " + section);
  if (!persistent) {
    if (d.table)
      diag.error(d.loc, "@table on '" + d.name + "' needs persistent memory, not " + section);
    if (!d.fixed.empty())
      diag.error(d.loc, "@fixed on '" + d.name + "' needs persistent memory, not " + section);
    if (!d.auto_dim.empty())
      diag.error(d.loc, "@auto_dim on '" + d.name + "' needs persistent memory, not " + section);
  }
  if (d.table && d.indices.empty())
    diag.error(d.loc, "@table '" + d.name + "' declares no indices (write " + d.name + "(i): ...)");
  for (size_t i = 0; i < d.indices.size(); ++i)
    if (std::find(d.indices.begin(), d.indices.begin() + i, d.indices[i]) != d.indices.begin() + i)
      diag.error(d.loc, "index '" + d.indices[i] + "' of '" + d.name + "' is declared twice");
  for (const auto& a : d.auto_dim)
    if (!has_index(d, a))
      diag.error(d.loc, "@auto_dim index '" + a + "' is not an index of '" + d.name + "'");
  if (!d.auto_dim.empty() && d.auto_dim.size() != d.dims.size())
    diag.error(d.loc, "@auto_dim of '" + d.name + "' names " + std::to_string(d.auto_dim.size()) +
                          " indices but the declaration has " + std::to_string(d.dims.size()) +
                          " dims (one index grows each dim)");
  for (const auto& f : d.fixed) {
    if (!has_index(d, f.index))
      diag.error(d.loc,
                 "@fixed bounds '" + f.index + "', which is not an index of '" + d.name + "'");
    if (!f.bound.is_name() && f.bound.value <= 0)
      diag.error(d.loc, "@fixed bound of '" + f.index + "' in '" + d.name + "' must be positive");
  }
}

void check_pattern(const VarDecl& d, Diagnostics& diag) {
  if (!d.pattern) return;
  if (d.indices.empty()) {
    diag.error(d.loc, "@pattern on '" + d.name + "' needs a prefix table (" + d.name + "(i): ...)");
    return;
  }
  // Prefix tables (the only declarations that read @pattern) live in volatile or constant
  // memory; an indexed persistent declaration is a table, which names no model tensors.
  if (d.memory == MemoryKind::Persistent) {
    diag.error(d.loc, "@pattern on persistent table '" + d.name +
                          "': prefix tables are declared in volatile or constant memory");
    return;
  }
  const std::string& p = *d.pattern;
  for (size_t open = p.find('{'); open != std::string::npos; open = p.find('{', open + 1)) {
    size_t close = p.find('}', open);
    if (close == std::string::npos) {
      diag.error(d.loc, "@pattern \"" + p + "\" of '" + d.name + "' has an unclosed '{'");
      return;
    }
    std::string name = p.substr(open + 1, close - open - 1);
    if (!has_index(d, name))
      diag.error(d.loc, "@pattern of '" + d.name + "' uses {" + name +
                            "}, which is not one of its indices");
  }
}

}  // namespace

void check_declarations(const GraphIndex& index) {
  Diagnostics& diag = index.diag;
  for (const auto& d : index.graph.decls) {
    check_table_attributes(d, diag);
    check_pattern(d, diag);
    if (d.init) {
      std::string problem = literal_fit_problem(*d.init, d.dtype, FitMode::Init);
      if (!problem.empty()) diag.error(d.loc, "@init of '" + d.name + "': " + problem);
    }
    if (d.ref && !d.indices.empty())
      diag.error(d.loc, "@ref on prefix table '" + d.name + "' (use @pattern to name its entries)");
    if (d.memory == MemoryKind::Dynamic && d.init)
      diag.warning(d.loc,
                   "@init on dynamic '" + d.name + "' is ignored: the host inserts it every step");
    for (const auto& a : d.other_attributes)
      diag.warning(a.loc.line ? a.loc : d.loc,
                   "unknown attribute '@" + a.name + "' on '" + d.name + "' is kept");
  }
}

}  // namespace oi::validation
