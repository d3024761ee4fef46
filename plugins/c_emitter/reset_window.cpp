// cache.reset of a window of table entries in generated C (reset_window.hpp).
#include "reset_window.hpp"

#include <sstream>

namespace oi::c_emitter {

bool reset_is_window(const AccessText& access, size_t table_rank) {
  bool whole_axis = false;
  for (size_t k = 0; k < access.slots.size() && k < table_rank; ++k) {
    const SlotText& slot = access.slots[k];
    if (!slot.range) {
      if (whole_axis) return true;
    } else if (slot.start || slot.end) {
      return true;
    } else {
      whole_axis = true;
    }
  }
  return false;
}

namespace {

// The failure when the undo record cannot grow, as the prefix resets word it.
std::string undo_failure(const std::string& what, const std::string& name, const ResetContext& ctx,
                         const std::string& indent) {
  return indent + "  s->failed = fail(s, " + ctx.prefix + "_ERR_MEMORY, \"" +
         format_text(ctx.at.empty() ? "" : ctx.at + ": ") + "out of memory keeping the undo " +
         "record of " + what + " '" + format_text(name) + "'\");\n" + indent + "  " + ctx.stop +
         "\n";
}

}  // namespace

std::string table_reset_window(const TableDecl& table, const AccessText& access,
                               const ResetContext& ctx) {
  std::ostringstream c;
  const std::string& in = ctx.indent;
  c << in << "{ /* cache.reset of a window */\n"
    << span_code(table, access, ctx.index_c, ctx.at, ctx.prefix, ctx.stop, in + "  ", nullptr) << in
    << "  if (oi_tab_reset_span(&s->t_" << table.name << ", st, ln) != 0) {\n"
    << undo_failure("table", table.name, ctx, in + "  ") << in << "  }\n"
    << in << "}\n";
  return c.str();
}

std::string auto_reset_window(const AutoDimDecl& m, const AccessText& access,
                              const std::string& count_c, const ResetContext& ctx) {
  const size_t nt = m.table_indices.size();
  const std::string NT = std::to_string(nt), A = "s->a_" + m.name;
  AccessText keys = access;  // the @table slots choose; the auto ones name parts of a matrix
  if (keys.slots.size() > nt) keys.slots.resize(nt);
  const TableDecl table{m.name, m.table_indices, m.table_bounds};
  std::string span =
      span_code(table, keys, ctx.index_c, ctx.at, ctx.prefix, ctx.stop, ctx.indent + "  ", nullptr);
  // span_code reads a growing size from s->t_NAME; a table of matrices keeps it in s->as_NAME.
  const std::string from = "s->t_" + m.name + ".size[", to = "s->as_" + m.name + "[";
  for (size_t at = span.find(from); at != std::string::npos; at = span.find(from, at + to.size()))
    span.replace(at, from.size(), to);
  std::ostringstream c;
  const std::string& in = ctx.indent;
  c << in << "{ /* cache.reset of a window of matrices */\n" << span;
  if (m.growable()) {
    c << in << "  const int64_t* cap = s->ac_" << m.name << ";\n";
  } else {
    c << in << "  static const int64_t cap[" << NT << "] = {";
    for (size_t k = 0; k < nt; ++k) c << (k ? ", " : "") << m.table_bounds[k] << "ll";
    c << "};\n";
  }
  c << in << "  int64_t key[" << NT << "];\n"
    << in << "  for (size_t e = 0; e < " << count_c << "; ++e) {\n"
    << in << "    int inside = 1;\n"
    << in << "    oi_ad_key((int64_t)e, cap, " << NT << "u, key);\n"
    << in << "    for (uint32_t k = 0; k < " << NT << "u; ++k)\n"
    << in << "      inside = inside && key[k] >= st[k] && key[k] < st[k] + ln[k];\n"
    << in << "    if (inside && oi_ad_reset(&" << A << "[e]) != 0) {\n"
    << undo_failure("auto_dim", m.name, ctx, in + "    ") << in << "    }\n"
    << in << "  }\n"
    << in << "}\n";
  return c.str();
}

}  // namespace oi::c_emitter
