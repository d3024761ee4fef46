// Kernels of run-time shapes (runtime_kernel.hpp).
#include "runtime_kernel.hpp"

#include <algorithm>
#include <optional>
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
  bool access = false;                 // a persistent table's access through its buffer
  std::optional<PrefixEntryC> entry;   // a prefix table's entry
  std::optional<RuntimeSliceC> slice;  // the output: a table slice of run-time length
  bool stacked = false;  // an input: a table access of run-time length (e.slice_inputs)
};

}  // namespace

std::string runtime_kernel(const RuntimeKernelEnv& e, const json::object& k) {
  const std::string id = std::to_string(k.at("id").as_int64());
  const auto& ops = k.at("ops").as_array();
  const json::object& op = ops.at(0).as_object();
  const std::string where = op_where(op), name = str(op.at("op"));
  if (ops.size() != 1)  // c_generator.cpp splits a fused kernel into its ops first
    invalid_plan("kernel " + id + " (" + where + ") of run-time shapes has several ops");
  const auto& settings = op.at("settings").as_object();
  const bool acc = settings.contains("acc");
  bool bcast = false;
  const std::string rule = shape_rule(op, bcast);
  if (rule.empty())  // only a kernel pack registers other rules, and its ops have no C kernel
    c_gap("library-entry-point", where + ": op '" + name + "' of shape rule '" +
                                     str(op.at("shape_rule")) +
                                     "' (a kernel pack's) has no C kernel library entry point");
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
    s.stacked = i < n && e.slice_inputs.count(s.text) > 0;
    if (s.stacked) {
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
      // A plain value, a persistent table's access through its buffer (the caller reads and
      // stores it) or a prefix table's entry, its number known at run time.
      const Value& v = e.env.operand(s.text);
      s.dtype = v.dtype;
      s.p = "(unsigned char*)s->v_" + v.name;
      s.access = s.text.find('[') != std::string::npos && v.storage == "tabview";
      if (!s.access && i < n && e.prefix_entry) s.entry = e.prefix_entry(s.text, "e" + N);
      if (s.entry) s.p = s.entry->data;
      if (v.table || v.ptable || (s.text.find('[') != std::string::npos && !s.access && !s.entry))
        invalid_plan("'" + s.text + "' of " + where + " is neither a value, a table's access nor " +
                     "a prefix table's entry");
    }
    // A packed matrix is read a cell a byte (auto_dim.hpp): packed for the library into k_N.
    if (s.matrix && packed_bits(s.dtype) && i < n) {
      s.p = "k" + N;
      cleanup += "free(" + s.p + "); ";
    }
  }
  const Side& out = sides[n];
  const std::string R = "OI_AD_RANK";
  // A side's rank, static: a matrix's declared one, a value's.
  auto rank_of = [&](const Side& s) {
    const AccessText a = parse_access(s.text);
    if (s.stacked) {  // the sliced indices, then an entry's dims
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
    if (s.matrix || s.stacked) c << I << "  unsigned char* " << s.b << " = NULL;\n";
    if (s.p != s.b && s.matrix) c << I << "  unsigned char* " << s.p << " = NULL;\n";
  }
  c << I << "  unsigned char *br = NULL, *bs = NULL;\n"
    << I << "  int64_t rs[" << R << "] = {0};\n"
    << I << "  uint32_t rr = 0;\n";
  cleanup += "free(br); free(bs);";
  const std::string stop_all = cleanup + " " + e.stop;
  if (!out.matrix && e.runtime_slice) {
    sides[n].slice = e.runtime_slice(out.text, I + "  ", stop_all);
    if (sides[n].slice) sides[n].access = false;
  }
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
    if (s.entry)  // the model lacks the entry: the simulator's message where it reads it
      c << I << "  const int64_t e" << s.d.substr(1) << " = " << s.entry->at << ";\n"
        << I << "  if (" << s.entry->missing << ") {\n"
        << I << "    {\n"
        << s.entry->fail << I << "    }\n"
        << I << "    " << stop_all << "\n"
        << I << "  }\n";
    c << I << "  " << s.r << " = " << v.shape.size() << "u;\n";
    for (size_t k = 0; k < v.shape.size(); ++k)
      c << I << "  " << s.d << "[" << k << "] = " << v.shape[k] << "ll;\n";
  };
  if (out.matrix) {
    c << read(out, at_of("output_at", 0));
  } else if (out.slice) {
    // The slice's span and shape at run time, as the simulator reads the output access first.
    c << out.slice->span << I << "  " << out.r << " = " << out.slice->dims.size() << "u;\n";
    for (size_t q = 0; q < out.slice->dims.size(); ++q)
      c << I << "  " << out.d << "[" << q << "] = (int64_t)" << out.slice->dims[q] << ";\n";
  } else {
    static_dims(out);
  }
  for (size_t i = 0; i < n; ++i) {
    if (sides[i].matrix)
      c << read(sides[i], at_of("inputs_at", i));
    else if (sides[i].stacked)
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
  const bool plain = !out.matrix && !out.access && !out.slice;
  if (plain) {
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
      << I << "    for (uint32_t q = 0; spread && q < rt; ++q) spread = o[q] == dt[q];\n";
    if (acc) {
      // acc= runs the kernel over the access itself: an elementwise op that broadcasts its
      // inputs to it, else the simulator's error naming the access.
      if (rule == "broadcast" && bcast)
        c << I << "    if (spread) {\n"
          << I << "      memcpy(rs, dt, sizeof rs);\n"
          << I << "      rr = rt;\n"
          << I << "      spread = 0;\n"
          << I << "    } else {\n";
      else
        c << I << "    {\n";
      c << text_of("rs", "rr", "ta") << text_of("dt", "rt", "tb")
        << fail(op_at + "op '" + format_text(name) + "' produces shape %s but the access to '" +
                    format_text(out_name) + "' has shape %s",
                ", ta, tb")
        << I << "    }\n";
    }
    c << I << "  }\n";
  }
  // The result's bytes (packed dtypes packed, as the library writes them) and, for a matrix,
  // its cell's bytes (a packed one's a byte).
  const unsigned bits = packed_bits(out.dtype);
  const std::string esize = out.matrix ? std::to_string(e.autodims.at(out_name).esize)
                                       : std::to_string(dtype_size(out.dtype));
  const std::string result_bytes =
      bits ? "(cells * " + std::to_string(bits) + "u + 7u) / 8u" : "cells * " + esize + "u";
  c << I << "  {\n"
    << I << "    size_t cells = 1;\n"
    << I << "    for (uint32_t q = 0; q < rr; ++q) cells *= (size_t)rs[q];\n"
    << I << "    br = (unsigned char*)malloc(" << result_bytes << " + 1u);\n"
    << I << "    if (!br) {\n"
    << I << "      s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
    << "out of memory for the result of op '" << format_text(name) << "'\");\n"
    << I << "      " << stop_all << "\n"
    << I << "    }\n";
  // The library's views: dims as uint64_t; a packed matrix's cells packed.
  std::vector<std::string> xs;
  for (size_t i = 0; i < n; ++i) {
    const Side& s = sides[i];
    if (s.matrix && s.p != s.b) {
      const std::string B = std::to_string(packed_bits(s.dtype));
      c << I << "    {\n"
        << I << "      size_t m = 1;\n"
        << I << "      for (uint32_t q = 0; q < " << s.r << "; ++q) m *= (size_t)" << s.d
        << "[q];\n"
        << I << "      " << s.p << " = (unsigned char*)malloc((m * " << B << "u + 7u) / 8u + 1u);\n"
        << I << "      if (!" << s.p << ") {\n"
        << I << "        s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
        << "out of memory for the input of op '" << format_text(name) << "'\");\n"
        << I << "        " << stop_all << "\n"
        << I << "      }\n"
        << I << "      oi_ad_pack(" << s.p << ", " << s.b << ", m, " << B << "u);\n"
        << I << "    }\n";
    }
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
  const std::string mem_fail = I + "      s->failed = fail(s, " + e.env.prefix() +
                               "_ERR_MEMORY, \"" + op_at + "out of memory for the result of op '" +
                               format_text(name) + "'\");\n" + I + "      " + stop_all + "\n";
  // A packed result unpacked a cell a byte (bs, then br), as a matrix holds it.
  const std::string unpack =
      I + "  {\n" + I + "    size_t cells = 1;\n" + I +
      "    for (uint32_t q = 0; q < rr; ++q) cells *= (size_t)rs[q];\n" + I +
      "    bs = (unsigned char*)malloc(cells + 1u);\n" + I + "    if (!bs) {\n" + mem_fail + I +
      "    }\n" + I + "    oi_ad_unpack(bs, br, cells, " + std::to_string(bits) + "u);\n" + I +
      "    free(br);\n" + I + "    br = bs;\n" + I + "    bs = NULL;\n" + I + "  }\n";
  // A result of another shape than the access, not broadcasting to it: cache.write's error,
  // as the simulator stores it (into a slice or a table access alike).
  const std::string store_check =
      I + "  if (!same && !spread) {\n" + text_of("rs", "rr", "ta") + text_of("dt", "rt", "tb") +
      fail(format_text(at_of("output_at", 0) + ": ") + "cannot store a value of shape %s into '" +
               format_text(out_name) + "' where the access has shape %s",
           ", ta, tb") +
      I + "  }\n";
  if (plain) {
    const uint64_t numel = e.env.operand(out.text).numel();
    c << I << "  memcpy(s->v_" << out_name << ", br, " << u(value_bytes(out.dtype, numel))
      << ");\n";
    // A packed value's last byte: its unused bits zero (oinf.md).
    if (bits && numel % (8 / bits) != 0)
      c << I << "  ((unsigned char*)s->v_" << out_name << ")[" << numel / (8 / bits)
        << "] &= (unsigned char)" << ((1u << (numel % (8 / bits) * bits)) - 1u) << "u;\n";
  } else if (out.slice) {
    // Into the slice (its shape known now): the result of its shape, spread over it where it
    // broadcasts, else cache.write's error, as the simulator stores it.
    c << store_check << I << "  if (spread) {\n";
    if (bits) c << unpack;
    c << I << "    size_t cells = 1;\n"
      << I << "    for (uint32_t q = 0; q < rt; ++q) cells *= (size_t)dt[q];\n"
      << I << "    bs = (unsigned char*)malloc(cells * " << (bits ? "1" : esize) << "u + 1u);\n"
      << I << "    if (!bs) {\n"
      << mem_fail << I << "    }\n"
      << I << "    oi_rt_spread(" << (bits ? "1" : esize) << "u, br, rs, rr, bs, dt, rt);\n";
    if (bits)  // packed again, into a buffer of the slice's size
      c << I << "    free(br);\n"
        << I << "    br = (unsigned char*)malloc((cells * " << bits << "u + 7u) / 8u + 1u);\n"
        << I << "    if (!br) {\n"
        << mem_fail << I << "    }\n"
        << I << "    oi_ad_pack(br, bs, cells, " << bits << "u);\n";
    else
      c << I << "    free(br);\n" << I << "    br = bs;\n" << I << "    bs = NULL;\n";
    c << I << "  }\n" << out.slice->store("br", stop_all);
  } else if (out.access) {
    // Into the table access's buffer (the caller stores it): the result of its shape, spread
    // over it where it broadcasts, else cache.write's error, as the simulator stores it.
    const Value& v = e.env.operand(out.text);
    const std::string P = "(unsigned char*)s->v_" + v.name;
    c << store_check << I << "  if (spread) {\n";
    if (bits)  // spread a cell a byte, then packed into the buffer
      c << unpack << I << "    bs = (unsigned char*)malloc(" << v.numel() << "u + 1u);\n"
        << I << "    if (!bs) {\n"
        << mem_fail << I << "    }\n"
        << I << "    oi_rt_spread(1u, br, rs, rr, bs, dt, rt);\n"
        << I << "    oi_ad_pack(" << P << ", bs, " << v.numel() << "u, " << bits << "u);\n";
    else
      c << I << "    oi_rt_spread(" << esize << "u, br, rs, rr, " << P << ", dt, rt);\n";
    c << I << "  } else {\n"
      << I << "    memcpy(" << P << ", br, " << u(value_bytes(v.dtype, v.numel())) << ");\n"
      << I << "  }\n";
  } else {
    if (bits) c << unpack;
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
