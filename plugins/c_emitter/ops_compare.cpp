// Comparisons of ops.md in generated C: eq, ne, lt, le, gt, ge on float and integer operands
// (both of one dtype; f16, bf16 and f8 widened exactly to f32 first, the packed integers as
// their values), giving bool (one byte, 0 or 1). IEEE comparisons: a NaN
// compares unequal to everything, so only `ne` is true for it; -0.0 equals +0.0. Also the
// float tests is_nan, is_inf (either infinity) and is_neg (a < 0: false for -0.0 and NaN),
// and and/or/xor/not: logical on bool, bitwise on i32.
#include <set>

#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

bool narrow_float(const std::string& d) {
  return d == "f16" || d == "bf16" || d == "f8";
}

bool comparable(const std::string& d) {
  static const std::set<std::string> ok = {"f32", "f64", "f16", "bf16", "f8",  "i8",  "i16",
                                           "i32", "i64", "u8",  "u16",  "u32", "u64", "i4",
                                           "u4",  "i2",  "u2",  "i1",   "u1"};
  return ok.count(d) != 0;
}

// An operand as a value its C comparison sees exactly: narrow floats widened to f32.
std::string operand(const std::string& dtype, const std::string& x) {
  return narrow_float(dtype) ? "oi_" + dtype + "_to_f32(" + x + ")" : x;
}

std::string compare(const ElementwiseCall& e) {
  const std::string& from = e.from_dtype;
  if (e.dtype != "bool" || !comparable(from))
    throw LibraryInstead("c emitter: " + e.where + " on " + from + " giving " + e.dtype +
                         ": left to the C kernel library");
  check_settings(e.settings, {}, e.where);
  const std::string sym = e.op == "eq"   ? "=="
                          : e.op == "ne" ? "!="
                          : e.op == "lt" ? "<"
                          : e.op == "le" ? "<="
                          : e.op == "gt" ? ">"
                                         : ">=";
  return "(uint8_t)(" + operand(from, e.args[0]) + " " + sym + " " + operand(from, e.args[1]) + ")";
}

std::string test(const ElementwiseCall& e) {
  const std::string& from = e.from_dtype;
  if (e.dtype != "bool" || (from != "f32" && from != "f64" && !narrow_float(from)))
    throw LibraryInstead("c emitter: " + e.where + " on " + from +
                         ": left to the C kernel library");
  check_settings(e.settings, {}, e.where);
  const std::string x = operand(from, e.args[0]);
  if (e.op == "is_nan") return "(uint8_t)(isnan(" + x + ") != 0)";
  if (e.op == "is_inf") return "(uint8_t)(isinf(" + x + ") != 0)";
  return "(uint8_t)(" + x + " < 0)";
}

std::string logic(const ElementwiseCall& e) {
  if (e.dtype != "bool" && e.dtype != "i32")
    throw LibraryInstead("c emitter: " + e.where + " on " + e.dtype +
                         ": left to the C kernel library");
  check_settings(e.settings, {}, e.where);
  const auto& a = e.args;
  if (e.dtype == "bool") {
    if (e.op == "not") return "(uint8_t)!" + a[0];
    const std::string sym = e.op == "and" ? "&&" : e.op == "or" ? "||" : "!=";
    return "(uint8_t)((" + a[0] + " != 0) " + sym + " (" + a[1] + " != 0))";
  }
  if (e.op == "not") return "(int32_t)~(uint32_t)" + a[0];
  const std::string sym = e.op == "and" ? "&" : e.op == "or" ? "|" : "^";
  return "(int32_t)((uint32_t)" + a[0] + " " + sym + " (uint32_t)" + a[1] + ")";
}

}  // namespace

void register_compare_ops(OpTable& t) {
  for (const char* op : {"is_nan", "is_inf", "is_neg"}) {
    t.elementwise[op] = test;
    t.mixed_dtypes.insert(op);
  }
  for (const char* op : {"and", "or", "xor", "not"}) t.elementwise[op] = logic;
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    t.elementwise[op] = compare;
    t.mixed_dtypes.insert(op);
  }
}

}  // namespace oi::c_emitter
