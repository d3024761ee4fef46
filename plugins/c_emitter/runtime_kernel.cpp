// Kernels of run-time shapes (runtime_kernel.hpp).
#include "runtime_kernel.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "library_calls.hpp"
#include "runtime_copy.hpp"
#include "runtime_shape_rules.hpp"
#include "tables.hpp"

namespace oi::c_emitter {
namespace {

// One operand: where its bytes are (`p`), its dims and rank (C names), and for a matrix the
// buffer to free (`b`).
struct Side {
  std::string text, p, b, d, r, dtype;
  bool matrix = false;
  bool slice = false;  // a table access of run-time length (e.slice_inputs)
};

}  // namespace

std::string runtime_kernel(const RuntimeKernelEnv& e, const json::object& k) {
  const std::string id = std::to_string(k.at("id").as_int64());
  const auto& ops = k.at("ops").as_array();
  const json::object& op = ops.at(0).as_object();
  const std::string where = op_where(op), name = str(op.at("op"));
  if (ops.size() != 1)
    c_gap("op-on-auto-dim", "kernel " + id + " (" + where +
                                "): several ops fused around a matrix of run-time shape is "
                                "not supported yet");
  const auto& settings = op.at("settings").as_object();
  if (settings.contains("acc"))
    c_gap("op-on-auto-dim",
          where + " with acc= on a matrix of run-time shape is not supported yet");
  bool bcast = false;
  const std::string rule = shape_rule(name, bcast);
  if (rule.empty())
    c_gap("op-on-auto-dim", where +
                                ": an op of this shape rule on a matrix of run-time shape is "
                                "not supported yet");
  if (!e.lib)
    c_gap("library-missing", where +
                                 " on a matrix of run-time shape needs the C kernel library, "
                                 "which is missing beside the plugin");
  auto at_of = [&](const std::string& key, size_t i) {
    std::string at = str(op.at("at"));
    if (key == "inputs_at" && op.contains(key) && i < op.at(key).as_array().size())
      at = str(op.at(key).as_array()[i]);
    else if (key == "output_at" && op.contains(key))
      at = str(op.at(key));
    const size_t slash = at.find_last_of('/');
    return e.freestanding && slash != std::string::npos ? at.substr(slash + 1) : at;
  };
  const std::string I = e.indent;
  const std::string op_at = format_text(at_of("at", 0) + ": ");
  // The operands: inputs, then the output (index n).
  const auto& ins = op.at("inputs").as_array();
  const size_t n = ins.size();
  std::vector<Side> sides(n + 1);
  std::string cleanup;
  for (size_t i = 0; i <= n; ++i) {
    Side& s = sides[i];
    s.text = i < n ? str(ins[i]) : str(op.at("output"));
    const AccessText a = parse_access(s.text);
    const std::string N = i < n ? std::to_string(i) : "t";
    s.d = "d" + N;
    s.r = "r" + N;
    s.matrix = e.autodims.count(a.name) > 0;
    s.slice = i < n && e.slice_inputs.count(s.text) > 0;
    if (s.slice) {
      s.dtype = e.env.value(a.name).dtype;
      s.b = "b" + N;
      s.p = s.b;
      cleanup += "free(" + s.b + "); ";
    } else if (s.matrix) {
      const AutoDimDecl& m = e.autodims.at(a.name);
      s.dtype = m.dtype;
      s.b = "b" + N;
      s.p = s.b;
      cleanup += "free(" + s.b + "); ";
    } else {
      // A plain value, or a persistent table's entry copied out into its buffer (the caller).
      const Value& v = e.env.operand(s.text);
      if (v.table || v.ptable || (s.text.find('[') != std::string::npos && v.storage != "tabview"))
        c_gap("op-on-auto-dim", where + ": '" + s.text +
                                    "', an entry of a prefix table, beside a matrix of run-time "
                                    "shape is not supported yet");
      s.dtype = v.dtype;
      s.p = "(unsigned char*)s->v_" + v.name;
    }
    if (packed_bits(s.dtype) || s.dtype == "bitset")
      c_gap("op-on-auto-dim", where + ": '" + s.text + "' of dtype " + s.dtype +
                                  " beside a matrix of run-time shape is not supported yet");
  }
  const Side& out = sides[n];
  const std::string R = "OI_AD_RANK";
  // A side's rank, static: a matrix's declared one, a value's.
  auto rank_of = [&](const Side& s) {
    const AccessText a = parse_access(s.text);
    if (s.slice) {  // the sliced indices, then an entry's dims
      const Value& t = e.env.value(a.name);
      size_t ranged = 0;
      for (size_t k = 0; k < t.indices.size(); ++k)
        if (k >= a.slots.size() || a.slots[k].range) ++ranged;
      return ranged + t.shape.size();
    }
    if (!s.matrix) return e.env.operand(s.text).shape.size();
    const AutoDimDecl& m = e.autodims.at(a.name);  // a table's: its sliced @table slots too
    size_t lead = 0;
    for (size_t k = 0; k < m.table_indices.size(); ++k)
      if (!a.brackets || a.slots.empty() || a.slots[k].range || !a.slots[k].index) ++lead;
    return lead + m.base.size();
  };
  std::ostringstream c;
  c << I << "{ /* kernel " << id << ": " << where << ", shapes known at run time */\n";
  for (const Side& s : sides) {
    c << I << "  int64_t " << s.d << "[" << R << "] = {0};\n"
      << I << "  uint32_t " << s.r << " = 0;\n";
    if (s.matrix || s.slice) c << I << "  unsigned char* " << s.b << " = NULL;\n";
  }
  c << I << "  unsigned char *br = NULL, *bs = NULL;\n"
    << I << "  int64_t rs[" << R << "] = {0};\n"
    << I << "  uint32_t rr = 0;\n";
  cleanup += "free(br); free(bs);";
  const std::string stop_all = cleanup + " " + e.stop;
  auto fail = [&](const std::string& message, const std::string& args) {
    return I + "    s->failed = fail(s, " + e.env.prefix() + "_ERR_RUN, \"" + message + "\"" +
           args + ");\n" + I + "    " + stop_all + "\n";
  };
  // The matrices read as the simulator reads them: the output's access first, then the inputs.
  auto read = [&](const Side& s, const std::string& at) {
    AutoDimContext ctx{e.index_c, e.env.prefix(), at, stop_all, I + "  "};
    AutoDimRuntime rt{s.b, s.d, s.r};
    AutoDimRead rd;
    rd.pad = false;
    const AccessText a = parse_access(s.text);
    return auto_dim_access(e.autodims.at(a.name), a, s.b, {}, false, ctx, rd, &rt);
  };
  auto static_dims = [&](const Side& s) {
    const Value& v = e.env.operand(s.text);
    c << I << "  " << s.r << " = " << v.shape.size() << "u;\n";
    for (size_t k = 0; k < v.shape.size(); ++k)
      c << I << "  " << s.d << "[" << k << "] = " << v.shape[k] << "ll;\n";
  };
  if (out.matrix)
    c << read(out, at_of("output_at", 0));
  else if (!e.slice_store)
    static_dims(out);
  for (size_t i = 0; i < n; ++i) {
    if (sides[i].matrix)
      c << read(sides[i], at_of("inputs_at", i));
    else if (sides[i].slice)
      c << table_slice_read(e.env, sides[i].text, e.index_c, at_of("inputs_at", i), stop_all,
                            I + "  ", {sides[i].b, sides[i].d, sides[i].r});
    else
      static_dims(sides[i]);
  }
  // The result's shape by the op's rule (runtime_shape_rules.cpp).
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::vector<RuleOperand> rule_ins;
  for (size_t i = 0; i < n; ++i) rule_ins.push_back({sides[i].d, sides[i].r, rank_of(sides[i])});
  const ShapeRuleText rules{where,    name, op_at + "op '" + format_text(name) + "': ", I, settings,
                            rule_ins, fail};
  c << result_shape_code(rules, rule, bcast);
  // The result against the output: equal, spread over a matrix access it broadcasts to, or
  // (a plain output) the simulator's error; a matrix's store reports another shape.
  const std::string out_name = parse_access(out.text).name;
  c << I << "  int same = rr == rt, spread = 0;\n"
    << I << "  for (uint32_t q = 0; same && q < rr; ++q) same = rs[q] == dt[q];\n"
    << I << "  (void)spread;\n";
  if (e.slice_store) {
    // stored by slice_store, which checks the result against the slice
  } else if (!out.matrix) {
    c << I << "  if (!same) {\n"
      << text_of("rs", "rr", "ta") << text_of("dt", "rt", "tb")
      << fail(op_at + "op '" + format_text(name) + "' produces shape %s but output '" +
                  format_text(out_name) + "' has shape %s",
              ", ta, tb")
      << I << "  }\n";
  } else {
    c << I << "  if (!same) {\n"
      << I << "    int64_t o[" << R << "] = {0};\n"
      << I << "    const int b = oi_rt_broadcast(rs, rr, dt, rt, o);\n"
      << I << "    spread = b == (int)rt;\n"
      << I << "    for (uint32_t q = 0; spread && q < rt; ++q) spread = o[q] == dt[q];\n"
      << I << "  }\n";
  }
  const std::string esize = std::to_string(dtype_size(out.dtype));
  c << I << "  {\n"
    << I << "    size_t cells = 1;\n"
    << I << "    for (uint32_t q = 0; q < rr; ++q) cells *= (size_t)rs[q];\n"
    << I << "    br = (unsigned char*)malloc(cells * " << esize << "u + 1u);\n"
    << I << "    if (!br) {\n"
    << I << "      s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
    << "out of memory for the result of op '" << format_text(name) << "'\");\n"
    << I << "      " << stop_all << "\n"
    << I << "    }\n";
  // The library's views: dims as uint64_t.
  std::vector<std::string> xs;
  for (size_t i = 0; i < n; ++i) {
    const Side& s = sides[i];
    c << I << "    uint64_t u" << i << "[" << R << "];\n"
      << I << "    for (uint32_t q = 0; q < " << s.r << "; ++q) u" << i << "[q] = (uint64_t)" << s.d
      << "[q];\n";
    xs.push_back("{(void*)" + s.p + ", " + std::to_string(dtype_tag(s.dtype)) + "u, " + s.r +
                 ", u" + std::to_string(i) + "}");
  }
  c << I << "    uint64_t ur[" << R << "];\n"
    << I << "    for (uint32_t q = 0; q < rr; ++q) ur[q] = (uint64_t)rs[q];\n";
  const std::string y = "{(void*)br, " + std::to_string(dtype_tag(out.dtype)) + "u, rr, ur}";
  c << I << "    if (cells) {\n";
  std::string call = library_call(e.env, op, *e.lib, e.used, xs, y, stop_all);
  // Indent the call's block to this depth.
  std::string indented;
  for (size_t p = 0, q; p < call.size(); p = q + 1) {
    q = call.find('\n', p);
    if (q == std::string::npos) q = call.size();
    indented += I + "    " + call.substr(p, q - p) + "\n";
  }
  c << indented << I << "    }\n" << I << "  }\n";
  if (e.slice_store) {
    c << e.slice_store(I + "  ", stop_all);
  } else if (!out.matrix) {
    c << I << "  memcpy(s->v_" << out_name << ", br, "
      << u(value_bytes(out.dtype, e.env.operand(out.text).numel())) << ");\n";
  } else {
    // Spread over the access (the simulator's broadcast_to), then stored as cache.write stores.
    c << I << "  if (spread) {\n"
      << I << "    size_t cells = 1;\n"
      << I << "    for (uint32_t q = 0; q < rt; ++q) cells *= (size_t)dt[q];\n"
      << I << "    bs = (unsigned char*)malloc(cells * " << esize << "u + 1u);\n"
      << I << "    if (!bs) {\n"
      << I << "      s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
      << "out of memory for the result of op '" << format_text(name) << "'\");\n"
      << I << "      " << stop_all << "\n"
      << I << "    }\n"
      << I << "    oi_rt_spread(" << esize << "u, br, rs, rr, bs, dt, rt);\n"
      << I << "    memcpy(rs, dt, sizeof rs);\n"
      << I << "    rr = rt;\n"
      << I << "    free(br);\n"
      << I << "    br = bs;\n"
      << I << "    bs = NULL;\n"
      << I << "  }\n";
    AutoDimContext ctx{e.index_c, e.env.prefix(), at_of("output_at", 0), stop_all, I + "  "};
    AutoDimRuntime rt{"br", "rs", "rr"};
    const AccessText a = parse_access(out.text);
    c << auto_dim_access(e.autodims.at(a.name), a, "br", {}, true, ctx, AutoDimRead(), &rt);
  }
  c << I << "  " << cleanup << "\n" << I << "}\n";
  return c.str();
}

}  // namespace oi::c_emitter
