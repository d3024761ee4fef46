// Copy steps of run-time shapes (runtime_copy.hpp).
#include "runtime_copy.hpp"

#include <algorithm>
#include <vector>

#include "tables.hpp"

namespace oi::c_emitter {
namespace {

// The format of a shape of `rank` dims ("[%lld, %lld]", as the simulator writes one) and its
// arguments, the dims d[0..rank).
std::string shape_format(size_t rank) {
  std::string f = "[";
  for (size_t k = 0; k < rank; ++k) f += (k ? ", " : "") + std::string("%lld");
  return f + "]";
}
std::string shape_args(const std::string& d, size_t rank) {
  std::string a;
  for (size_t k = 0; k < rank; ++k) a += ", (long long)" + d + "[" + std::to_string(k) + "]";
  return a;
}

struct Table {
  const Value* v = nullptr;
  AccessText a;
  std::vector<size_t> ranged;  // the sliced index slots
  bool bounded = true;         // every sliced index @fixed
};

Table table_of(const KernelEnv& env, const std::string& text) {
  Table t;
  t.a = parse_access(text);
  t.v = &env.value(t.a.name);
  for (size_t k = 0; k < t.v->indices.size(); ++k)
    if (k >= t.a.slots.size() || t.a.slots[k].range) {
      t.ranged.push_back(k);
      if (t.v->bounds[k] < 0) t.bounded = false;
    }
  return t;
}

}  // namespace

std::string table_slice_read(const KernelEnv& env, const std::string& text,
                             const std::function<std::string(const std::string&)>& index_c,
                             const std::string& at, const std::string& stop,
                             const std::string& indent, const RuntimeBuffer& out,
                             const std::string& span) {
  const Table src = table_of(env, text);
  const Value& t = *src.v;
  const std::string J = indent, P = env.prefix();
  const unsigned bits = packed_bits(t.dtype);
  std::string c =
      J + "{\n" +
      span_code({t.name, t.indices, t.bounds}, src.a, index_c, at, P, stop, J + "  ", nullptr);
  size_t q = 0;
  for (size_t k : src.ranged)
    c += J + "  " + out.dims + "[" + std::to_string(q++) + "] = ln[" + std::to_string(k) + "];\n";
  for (uint64_t d : t.shape)
    c += J + "  " + out.dims + "[" + std::to_string(q++) + "] = " + std::to_string(d) + "ll;\n";
  c += J + "  " + out.rank + " = " + std::to_string(q) + "u;\n";
  if (!span.empty()) {
    c += J + "  " + out.data + " = (unsigned char*)" + span + ";\n";
  } else {
    c += J + "  size_t n = 1;\n" + J + "  for (uint32_t q = 0; q < " + out.rank +
         "; ++q) n *= (size_t)" + out.dims + "[q];\n";
    const std::string bytes = bits ? "(n * " + std::to_string(bits) + "u + 7u) / 8u"
                                   : "n * " + std::to_string(dtype_size(t.dtype)) + "u";
    c += J + "  " + out.data + " = (unsigned char*)malloc(" + bytes + " + 1u);\n" + J + "  if (!" +
         out.data + ") {\n" + J + "    s->failed = fail(s, " + P + "_ERR_MEMORY, \"" +
         format_text(at.empty() ? "" : at + ": ") + "out of memory reading table '" +
         format_text(t.name) + "'\");\n" + J + "    " + stop + "\n" + J + "  }\n";
  }
  c += J + "  oi_tab_read(&s->t_" + t.name + ", st, ln, " + out.data + ");\n" + J + "}\n";
  return c;
}

std::string runtime_copy(const RuntimeCopyEnv& e, const json::object& st) {
  const std::string from = str(st.at("from")), to = str(st.at("to")), kind = str(st.at("kind"));
  auto at_of = [&](const char* key) {
    std::string at = st.contains(key) ? str(st.at(key)) : str(st.at("at"));
    const size_t slash = at.find_last_of('/');
    return e.freestanding && slash != std::string::npos ? at.substr(slash + 1) : at;
  };
  const std::string from_at = at_of("from_at"), to_at = at_of("to_at");
  const std::string line = json::serialize(st.at("line"));
  const bool from_matrix = e.autodims.count(parse_access(from).name) > 0;
  const bool to_matrix = e.autodims.count(parse_access(to).name) > 0;
  const std::string I = e.indent, P = e.env.prefix();
  std::string dtype_from, dtype_to;
  unsigned bits = 0;
  size_t rank = 1, src_rank = 0;
  Table src, dst;
  if (from_matrix) {
    const AutoDimDecl& m = e.autodims.at(parse_access(from).name);
    dtype_from = m.dtype;
    const AccessText a = parse_access(from);
    src_rank = m.base.size();  // and the sliced @table slots stacking matrices
    for (size_t k = 0; k < m.table_indices.size(); ++k)
      if (!a.brackets || a.slots.empty() || a.slots[k].range || !a.slots[k].index) ++src_rank;
  } else {
    src = table_of(e.env, from);
    dtype_from = src.v->dtype;
    src_rank = src.ranged.size() + src.v->shape.size();
  }
  rank = std::max(rank, src_rank);
  if (to_matrix) {
    const AutoDimDecl& m = e.autodims.at(parse_access(to).name);
    dtype_to = m.dtype;
    rank = std::max(rank, m.base.size() + m.table_indices.size());
  } else {
    dst = table_of(e.env, to);
    dtype_to = dst.v->dtype;
    rank = std::max(rank, dst.ranged.size() + dst.v->shape.size());
  }
  if (dtype_from != dtype_to)
    invalid_plan("a " + kind + " (line " + line + ") from '" + from + "' (" + dtype_from +
                 ") into '" + to + "' (" + dtype_to + "): the dtypes differ");
  bits = packed_bits(dtype_from);
  // The source's bytes: owned (malloc) unless a @fixed slice's state buffer.
  const bool owned = from_matrix || !src.bounded || !e.freestanding;
  const bool convert = bits && from_matrix != to_matrix;  // packed bits <-> a byte a cell
  const std::string cleanup =
      std::string(owned ? "free(cb); " : "") + (convert ? "free(xb);" : "(void)xb;");
  const std::string stop_all = cleanup + " " + e.stop;
  const std::string R = std::to_string(rank);
  std::string c = I + "{ /* " + kind + " " + from + " >> " + to + " */\n" + I +
                  "  unsigned char* cb = NULL;\n" + I + "  unsigned char* xb = NULL;\n" + I +
                  "  int64_t cd[" + R + "] = {0};\n" + I + "  uint32_t cr = 0;\n" + I +
                  "  size_t cn = 1;\n" + I + "  (void)cn;\n";
  const std::string J = I + "  ";
  // The source, in its run-time shape.
  if (from_matrix) {
    AutoDimContext ctx{e.index_c, P, from_at, stop_all, J};
    AutoDimRead rd;
    rd.pad = false;
    AutoDimRuntime rt{"cb", "cd", "cr"};
    const AccessText a = parse_access(from);
    c += auto_dim_access(e.autodims.at(a.name), a, "cb", {}, false, ctx, rd, &rt);
  } else {
    std::string span;  // a @fixed slice's state buffer where nothing is owned
    if (!owned) {
      uint64_t most = 1;
      for (size_t k : src.ranged) most *= static_cast<uint64_t>(src.v->bounds[k]);
      span = e.span_buffer(value_bytes(src.v->dtype, most * src.v->numel()));
    }
    c += table_slice_read(e.env, from, e.index_c, from_at, stop_all, J, {"cb", "cd", "cr"}, span);
  }
  c += J + "for (uint32_t q = 0; q < cr; ++q) cn *= (size_t)cd[q];\n";
  // A packed dtype: a matrix holds a byte a cell, a table the packed bits.
  std::string data = "cb";
  if (convert) {
    const std::string B = std::to_string(bits);
    c += J + "xb = (unsigned char*)malloc(" + (to_matrix ? "cn" : "(cn * " + B + "u + 7u) / 8u") +
         " + 1u);\n" + J + "if (!xb) {\n" + J + "  s->failed = fail(s, " + P +
         "_ERR_MEMORY, \"out of memory copying into '" + format_text(parse_access(to).name) +
         "'\");\n" + J + "  " + stop_all + "\n" + J + "}\n" + J +
         (to_matrix ? "oi_ad_unpack(xb, cb, cn, " : "oi_ad_pack(xb, cb, cn, ") + B + "u);\n";
    data = "xb";
  }
  // The destination, as cache.write stores into it.
  if (to_matrix) {
    AutoDimContext ctx{e.index_c, P, to_at, stop_all, J};
    AutoDimRuntime rt{data, "cd", "cr"};
    const AccessText a = parse_access(to);
    c += auto_dim_access(e.autodims.at(a.name), a, data, {}, true, ctx, AutoDimRead(), &rt);
  } else {
    const Value& t = *dst.v;
    const std::string where = format_text(to_at.empty() ? "" : to_at + ": ");
    c += J + "{\n" +
         span_code({t.name, t.indices, t.bounds}, dst.a, e.index_c, to_at, P, stop_all, J + "  ",
                   nullptr);
    const size_t nr = dst.ranged.size(), ar = nr + t.shape.size();
    c += J + "  int64_t ad[" + R + "] = {0};\n";
    size_t q = 0;
    for (size_t k : dst.ranged)
      c += J + "  ad[" + std::to_string(q++) + "] = ln[" + std::to_string(k) + "];\n";
    for (uint64_t d : t.shape)
      c += J + "  ad[" + std::to_string(q++) + "] = " + std::to_string(d) + "ll;\n";
    c += J + "  int same = cr == " + std::to_string(ar) + "u;\n" + J +
         "  for (uint32_t q = 0; same && q < cr; ++q) same = cd[q] == ad[q];\n" + J +
         "  if (!same) {\n" + J + "    s->failed = fail(s, " + P + "_ERR_RUN, \"" + where +
         "cannot store a value of shape " + shape_format(src_rank) + " into '" +
         format_text(t.name) + "' where the access has shape " + shape_format(ar) + "\"" +
         shape_args("cd", src_rank) + shape_args("ad", ar) + ");\n" + J + "    " + stop_all + "\n" +
         J + "  }\n";
    c += J + "  const int rc = oi_tab_write(&s->t_" + t.name + ", st, ln, " + data + ");\n";
    if (!e.freestanding)
      c += J + "  if (rc == -2) {\n" + J + "    s->failed = budget_fail(s, \"" + where + "\", \"" +
           format_text(t.name) + "\");\n" + J + "    " + stop_all + "\n" + J + "  }\n";
    c += J + "  if (rc != 0) {\n" + J + "    s->failed = fail(s, " + P + "_ERR_MEMORY, \"" + where +
         "out of memory growing table '" + format_text(t.name) + "'\");\n" + J + "    " + stop_all +
         "\n" + J + "  }\n" + J + "}\n";
  }
  c += J + cleanup + "\n" + I + "}\n";
  return c;
}

}  // namespace oi::c_emitter
