// Comparisons of ops.md in generated C: eq, ne, lt, le, gt, ge on f32, f64, i32 and i64
// operands (both of one dtype), giving bool (one byte, 0 or 1). IEEE comparisons: a NaN
// compares unequal to everything, so only `ne` is true for it; -0.0 equals +0.0.
#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

std::string compare(const ElementwiseCall& e) {
  const std::string& from = e.from_dtype;
  if (e.dtype != "bool" ||
      (from != "f32" && from != "f64" && from != "i32" && from != "i64"))
    throw CUnsupported("c emitter: " + e.where + " on " + from + " giving " + e.dtype +
                       " is not supported yet");
  check_settings(e.settings, {}, e.where);
  const std::string sym = e.op == "eq"   ? "=="
                          : e.op == "ne" ? "!="
                          : e.op == "lt" ? "<"
                          : e.op == "le" ? "<="
                          : e.op == "gt" ? ">"
                                         : ">=";
  return "(uint8_t)(" + e.args[0] + " " + sym + " " + e.args[1] + ")";
}

}  // namespace

void register_compare_ops(OpTable& t) {
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    t.elementwise[op] = compare;
    t.mixed_dtypes.insert(op);
  }
}

}  // namespace oi::c_emitter
