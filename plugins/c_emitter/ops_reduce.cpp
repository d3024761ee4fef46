// Reductions in generated C: sum_axis, mean_axis, max_axis, min_axis (f32, f64) over `axes`,
// the head of a kernel whose elementwise epilogue follows. A scratch accumulator per output
// element takes its inputs in row-major order; max/min follow ops.md's NaN and signed-zero rules.
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
    throw CUnsupported("c emitter: " + where + " on a table entry is not supported yet");
  const Value &x = env.value(xn), &o = env.value(out);
  if ((o.dtype != "f32" && o.dtype != "f64") || x.dtype != o.dtype)
    throw CUnsupported("c emitter: " + where + " on " + x.dtype + " is not supported yet");
  const auto& settings = head.at("settings").as_object();
  std::vector<bool> reduced(x.shape.size(), !settings.contains("axes"));
  for (const auto& kv : settings) {
    if (kv.key() == "keepdims") continue;  // the output's shape already says it
    if (kv.key() != "axes" || !kv.value().is_array())
      throw CUnsupported("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                         "' is not supported yet");
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
    throw CUnsupported("c emitter: " + where + " over an empty axis");
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
  const std::string init = op == "max_axis" ? "-INFINITY" : op == "min_axis" ? "INFINITY" : "0";
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

}  // namespace

void register_reduce_ops(OpTable& t) {
  for (const char* op : {"sum_axis", "mean_axis", "max_axis", "min_axis"}) t.heads[op] = reduction;
}

}  // namespace oi::c_emitter
