// Reductions in generated C: sum_axis, mean_axis, max_axis, min_axis (f32, f64) over `axes`,
// and argmax_axis/argmin_axis; each the head of a kernel whose elementwise epilogue follows. A
// scratch accumulator per output element takes its inputs in row-major order; sums start at -0.0
// and max/min follow ops.md's NaN and signed-zero rules.
#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

std::string reduction(KernelEnv& env, const json::object& k, std::ostringstream& c,
                      std::string& head_value) {
  const auto& head = k.at("ops").as_array().at(0).as_object();
  const std::string op = str(head.at("op"));
  const std::string where = op + " (line " + json::serialize(head.at("line")) + ")";
  const std::string xn = str(head.at("inputs").as_array().at(0)), out = str(head.at("output"));
  if (xn.find('[') != std::string::npos)
    throw LibraryInstead("c emitter: " + where + " on a table entry: left to the C kernel library");
  const Value &x = env.value(xn), &o = env.value(out);
  if ((o.dtype != "f32" && o.dtype != "f64") || x.dtype != o.dtype)
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  const auto& settings = head.at("settings").as_object();
  std::vector<bool> reduced(x.shape.size(), !settings.contains("axes"));
  for (const auto& kv : settings) {
    if (kv.key() == "keepdims") continue;  // the output's shape already says it
    if (kv.key() != "axes" || !kv.value().is_array())
      throw LibraryInstead("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                           "': left to the C kernel library");
    for (const auto& a : kv.value().as_array()) {
      int64_t axis = a.to_number<int64_t>();
      if (axis < 0) axis += static_cast<int64_t>(x.shape.size());
      reduced.at(static_cast<size_t>(axis)) = true;
    }
  }
  uint64_t count = 1, in_n = x.numel(), out_n = o.numel();
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (reduced[d]) count *= x.shape[d];
  if (count == 0 && (op == "max_axis" || op == "min_axis"))
    throw LibraryInstead("c emitter: " + where + " over an empty axis");
  // Output index of input element i: the kept axes of i's multi-index, row-major.
  std::string index;
  uint64_t in_stride = 1, out_stride = 1;
  for (size_t d = x.shape.size(); d-- > 0;) {
    if (!reduced[d] && x.shape[d] != 1) {
      if (!index.empty()) index += " + ";
      index += "(i / " + std::to_string(in_stride) + "u % " + std::to_string(x.shape[d]) + "u) * " +
               std::to_string(out_stride) + "u";
    }
    if (!reduced[d]) out_stride *= x.shape[d];
    in_stride *= x.shape[d];
  }
  if (index.empty()) index = "0";
  const std::string T = c_type(o.dtype), sfx = o.dtype == "f32" ? "f" : "d";
  const std::string field = env.scratch(out_n * dtype_size(o.dtype) + 8);
  // A sum starts at -0.0, the identity of IEEE addition, so only -0.0 terms give -0.0; an empty
  // sum is +0.0 (ops.md).
  const std::string init = op == "max_axis"   ? "-INFINITY"
                           : op == "min_axis" ? "INFINITY"
                           : count == 0       ? "0"
                                              : "-0.0";
  const std::string step = op == "max_axis"   ? "oi_max_" + sfx + "(acc[o], v)"
                           : op == "min_axis" ? "oi_min_" + sfx + "(acc[o], v)"
                                              : "acc[o] + v";
  c << "  " << T << "* restrict acc = (" << T << "*)s->" << field << ";\n"
    << "  for (size_t o = 0; o < " << out_n << "u; ++o) acc[o] = (" << T << ")" << init << ";\n"
    << "  for (size_t i = 0; i < " << in_n << "u; ++i) {\n"
    << "    const size_t o = " << index << ";\n"
    << "    const " << T << " v = p_" << xn << "[i];\n"
    << "    acc[o] = " << step << ";\n  }\n";
  head_value = op == "mean_axis" ? "(acc[i] / (" + T + ")" + std::to_string(count) + ")" : "acc[i]";
  return out;
}

// argmax_axis / argmin_axis (f32, f64, i32, i64 -> i64) along `axis` (default 0): ties pick
// the first index (select_first=true) or the last, a slice holding a NaN its first NaN's index.
// Plain comparisons, as the CPU backend: -0.0 and +0.0 tie.
std::string arg_reduction(KernelEnv& env, const json::object& k, std::ostringstream& c,
                          std::string& head_value) {
  const auto& head = k.at("ops").as_array().at(0).as_object();
  const std::string op = str(head.at("op"));
  const std::string where = op + " (line " + json::serialize(head.at("line")) + ")";
  const auto& settings = head.at("settings").as_object();
  check_settings(settings, {"axis", "keepdims", "select_first"}, where);
  const std::string xn = str(head.at("inputs").as_array().at(0)), out = str(head.at("output"));
  if (xn.find('[') != std::string::npos)
    throw LibraryInstead("c emitter: " + where + " on a table entry: left to the C kernel library");
  const Value &x = env.value(xn), &o = env.value(out);
  const bool flt = x.dtype == "f32" || x.dtype == "f64";
  if ((!flt && x.dtype != "i32" && x.dtype != "i64") || o.dtype != "i64")
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  const bool first = !settings.contains("select_first") || !settings.at("select_first").is_bool() ||
                     settings.at("select_first").as_bool();
  uint64_t len = 1, inner = 1;
  if (!x.shape.empty()) {
    int64_t axis = int_setting(settings, "axis", 0, where);
    const auto rank = static_cast<int64_t>(x.shape.size());
    if (axis < -rank || axis >= rank) invalid_plan(where + ": axis out of range");
    if (axis < 0) axis += rank;
    len = x.shape[axis];
    inner = strides_of(x.shape)[axis];
  }
  if (len == 0) throw LibraryInstead("c emitter: " + where + " over an empty axis");
  const uint64_t rows = x.numel() / len;
  if (rows != o.numel()) invalid_plan(where + ": the output has another size");
  const std::string T = c_type(x.dtype), field = env.scratch(rows * 8 + 8);
  const std::string better =
      std::string(op == "argmax_axis" ? "v > best" : "v < best") + (first ? "" : " || v == best");
  c << "  int64_t* restrict acc = (int64_t*)s->" << field << ";\n"
    << "  for (size_t r = 0; r < " << u(rows) << "; ++r) {\n"
    << "    const size_t base = r / " << u(inner) << " * " << u(len * inner) << " + r % "
    << u(inner) << ";\n"
    << "    " << T << " best = p_" << xn << "[base];\n"
    << "    int64_t at = 0;\n";
  if (len > 1) {
    c << "    " << (flt ? "if (!isnan(best)) " : "") << "for (size_t j = 1; j < " << u(len)
      << "; ++j) {\n"
      << "      const " << T << " v = p_" << xn << "[base + j * " << u(inner) << "];\n";
    if (flt) c << "      if (isnan(v)) {\n        at = (int64_t)j;\n        break;\n      }\n";
    c << "      if (" << better << ") {\n        best = v;\n        at = (int64_t)j;\n      }\n"
      << "    }\n";
  } else {
    c << "    (void)best;\n";
  }
  c << "    acc[r] = at;\n  }\n";
  head_value = "acc[i]";
  return out;
}

}  // namespace

void register_reduce_ops(OpTable& t) {
  for (const char* op : {"sum_axis", "mean_axis", "max_axis", "min_axis"}) t.heads[op] = reduction;
  t.heads["argmax_axis"] = arg_reduction;
  t.heads["argmin_axis"] = arg_reduction;
}

}  // namespace oi::c_emitter
