// Elementwise arithmetic of ops.md in generated C: add, sub, mul, div (floats, with
// div_by_zero_mask), neg, abs, min, max, relu (floats), fill and cast, on f32, f64 and i32;
// on f16, bf16 and f8 (widened exactly to f32, computed in f32, rounded once to the output
// dtype, ops.md "Float arithmetic"); add, sub, mul, neg, abs, min, max and fill on the packed
// integers i4 u4 i2 u2 i1 u1 (computed as int32_t, wrapped to the dtype's width).
// Integer arithmetic wraps through uint32_t (no undefined behaviour).
#include <set>

#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

// ops.md's min/max (NaN first operand wins, then the second; -0.0 below +0.0) and relu (a zero
// result is +0.0, then the clamp), written as the CPU backend computes them.
const char* const kArithHelpersC =
    R"C(#define OI_MINMAX(T, S)                                          \
  static inline OI_HELPER T oi_min_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? a : b;                        \
    return a < b ? a : b;                                         \
  }                                                               \
  static inline OI_HELPER T oi_max_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? b : a;                        \
    return a > b ? a : b;                                         \
  }                                                               \
  static inline OI_HELPER T oi_relu_##S(T a, T alpha, T lo, T hi) {         \
    T y = a >= 0 ? a : alpha * a;                                 \
    if (y == 0) y = 0;                                            \
    if (y < lo) y = lo;                                           \
    if (y > hi) y = hi;                                           \
    return y;                                                     \
  }
OI_MINMAX(float, f)
OI_MINMAX(double, d)
/* relu with the default settings, the values of oi_relu_f(a, 0, -inf, inf) without a branch or
 * a float comparison (which GCC 12 does not if-convert, so the loop stayed scalar): a where it
 * is above +0 and not NaN (its bits, as an integer, in [1, +inf]), else a * 0 + 0 (+0, or a
 * NaN for -inf and NaN), selected bitwise. */
static inline OI_HELPER float oi_relu0_f(float a) {
  const float m = a * 0.0f + 0.0f;
  uint32_t ai, mi, r;
  float y;
  memcpy(&ai, &a, sizeof ai);
  memcpy(&mi, &m, sizeof mi);
  const uint32_t keep = 0u - (uint32_t)(ai - 1u < 0x7f800000u);
  r = (ai & keep) | (mi & ~keep);
  memcpy(&y, &r, sizeof y);
  return y;
}
static inline OI_HELPER double oi_relu0_d(double a) {
  const double m = a * 0.0 + 0.0;
  uint64_t ai, mi, r;
  double y;
  memcpy(&ai, &a, sizeof ai);
  memcpy(&mi, &m, sizeof mi);
  const uint64_t keep = 0u - (uint64_t)(ai - 1u < 0x7ff0000000000000u);
  r = (ai & keep) | (mi & ~keep);
  memcpy(&y, &r, sizeof y);
  return y;
}
static inline OI_HELPER int32_t oi_min_i(int32_t a, int32_t b) { return b < a ? b : a; }
/* An already rounded float to i32, saturating; NaN gives 0 (ops.md cast). */
static inline OI_HELPER int32_t oi_to_i32_d(double r) {
  if (isnan(r)) return 0;
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return (int32_t)r;
}
static inline OI_HELPER int32_t oi_to_i32_f(float r) { return oi_to_i32_d((double)r); }
static inline OI_HELPER int32_t oi_max_i(int32_t a, int32_t b) { return b > a ? b : a; }

/* Narrow and wide floats (oinf.md): `bits` of a binary format with sm mantissa and se exponent
 * bits rounded to one of dm and de bits: nearest, ties to even, overflow to inf, NaN quiet with
 * its high payload bits (plugin_api/include/openinfer/float_formats.hpp, bit for bit). */
static inline OI_HELPER uint32_t oi_narrow(uint64_t bits, int sm, int se, int dm, int de) {
  const uint64_t smax = ((uint64_t)1 << se) - 1u, dmax = ((uint64_t)1 << de) - 1u;
  const int64_t sbias = ((int64_t)1 << (se - 1)) - 1, dbias = ((int64_t)1 << (de - 1)) - 1;
  const uint64_t exp = (bits >> sm) & smax, man = bits & (((uint64_t)1 << sm) - 1u);
  const uint64_t sign = ((bits >> (se + sm)) & 1u) << (de + dm), inf = dmax << dm;
  if (exp == smax) {
    if (man == 0) return (uint32_t)(sign | inf);
    return (uint32_t)(sign | inf | (man >> (sm - dm)) | ((uint64_t)1 << (dm - 1)));
  }
  if (exp == 0 && man == 0) return (uint32_t)sign;
  int64_t e;
  uint64_t sig;
  if (exp == 0) {
    int lead = 63;
    while (!((man >> lead) & 1u)) --lead;
    sig = man << (sm - lead);
    e = 1 - sbias - (sm - lead);
  } else {
    sig = man | ((uint64_t)1 << sm);
    e = (int64_t)exp - sbias;
  }
  const int64_t biased = e + dbias;
  if (biased >= (int64_t)dmax) return (uint32_t)(sign | inf);
  int64_t shift = sm - dm;
  if (biased < 1) shift += 1 - biased;
  if (shift > sm + 1) return (uint32_t)sign;
  uint64_t rounded = sig >> shift;
  const uint64_t rest = sig & (((uint64_t)1 << shift) - 1u), half = (uint64_t)1 << (shift - 1);
  if (rest > half || (rest == half && (rounded & 1u))) ++rounded;
  if (biased < 1) return (uint32_t)(sign | rounded);
  return (uint32_t)(sign | (((uint64_t)(biased - 1) << dm) + rounded));
}
static inline OI_HELPER uint64_t oi_bits_f(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  return b;
}
static inline OI_HELPER uint64_t oi_bits_d(double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return b;
}
static inline OI_HELPER uint16_t oi_f32_to_f16(float v) { return (uint16_t)oi_narrow(oi_bits_f(v), 23, 8, 10, 5); }
static inline OI_HELPER uint16_t oi_f64_to_f16(double v) { return (uint16_t)oi_narrow(oi_bits_d(v), 52, 11, 10, 5); }
static inline OI_HELPER uint16_t oi_f32_to_bf16(float v) { return (uint16_t)oi_narrow(oi_bits_f(v), 23, 8, 7, 8); }
static inline OI_HELPER uint16_t oi_f64_to_bf16(double v) { return (uint16_t)oi_narrow(oi_bits_d(v), 52, 11, 7, 8); }
static inline OI_HELPER uint8_t oi_f32_to_f8(float v) { return (uint8_t)oi_narrow(oi_bits_f(v), 23, 8, 2, 5); }
static inline OI_HELPER uint8_t oi_f64_to_f8(double v) { return (uint8_t)oi_narrow(oi_bits_d(v), 52, 11, 2, 5); }
/* Exact widening to f32. */
static inline OI_HELPER float oi_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1fu) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp == 0) {
    int lead = 9;
    while (man != 0 && !((man >> lead) & 1u)) --lead;
    bits = man == 0 ? sign
                    : sign | ((uint32_t)(lead - 24 + 127) << 23) | ((man << (23 - lead)) & 0x7fffffu);
  } else {
    bits = sign | ((exp - 15u + 127u) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
static inline OI_HELPER float oi_bf16_to_f32(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
/* f8 is E5M2: the upper byte of the f16 of the same value. */
static inline OI_HELPER float oi_f8_to_f32(uint8_t b) { return oi_f16_to_f32((uint16_t)(b << 8)); }

/* Packed integers (oinf.md): element i in bits (i % per) * bits of byte i / per, LSB first. */
static inline OI_HELPER uint32_t oi_get_bits(const uint8_t* p, size_t i, unsigned bits) {
  const size_t per = 8u / bits;
  return (uint32_t)(p[i / per] >> ((unsigned)(i % per) * bits)) & ((1u << bits) - 1u);
}
static inline OI_HELPER void oi_set_bits(uint8_t* p, size_t i, unsigned bits, int32_t v) {
  const size_t per = 8u / bits;
  const unsigned shift = (unsigned)(i % per) * bits, mask = ((1u << bits) - 1u) << shift;
  p[i / per] = (uint8_t)((p[i / per] & ~mask) | (((uint32_t)v << shift) & mask));
}
#define OI_PACKED(DT, BITS, SIGNED)                                                   \
  static inline OI_HELPER int32_t oi_get_##DT(const uint8_t* p, size_t i) {        \
    const uint32_t v = oi_get_bits(p, i, BITS);                                     \
    return SIGNED ? (int32_t)(v ^ (1u << (BITS - 1))) - (int32_t)(1u << (BITS - 1)) \
                  : (int32_t)v;                                                     \
  }                                                                                 \
  static inline OI_HELPER void oi_set_##DT(uint8_t* p, size_t i, int32_t v) {     \
    oi_set_bits(p, i, BITS, v);                                                     \
  }                                                                                 \
  /* An int32_t wrapped around at the dtype's width (two's complement, ops.md). */  \
  static inline OI_HELPER int32_t oi_wrap_##DT(int32_t v) {                         \
    const uint32_t m = (uint32_t)v & ((1u << BITS) - 1u);                           \
    return SIGNED ? (int32_t)(m ^ (1u << (BITS - 1))) - (int32_t)(1u << (BITS - 1)) \
                  : (int32_t)m;                                                     \
  }
OI_PACKED(i4, 4, 1)
OI_PACKED(u4, 4, 0)
OI_PACKED(i2, 2, 1)
OI_PACKED(u2, 2, 0)
OI_PACKED(i1, 1, 1)
OI_PACKED(u1, 1, 0)
/* An already rounded float to a whole-byte integer, saturating; NaN gives 0 (ops.md cast). The
 * bounds are exact doubles: the range's ends, and 2^63, 2^64 past the 64-bit ones. */
#define OI_TO_INT(DT, T, LO, HI, TMIN, TMAX)                        \
  static inline OI_HELPER T oi_to_##DT##_d(double r) {              \
    if (isnan(r)) return 0;                                         \
    if (r >= HI) return TMAX;                                       \
    if (r <= LO) return TMIN;                                       \
    return (T)r;                                                    \
  }
OI_TO_INT(i8, int8_t, -128.0, 127.0, INT8_MIN, INT8_MAX)
OI_TO_INT(i16, int16_t, -32768.0, 32767.0, INT16_MIN, INT16_MAX)
OI_TO_INT(i64, int64_t, -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)
OI_TO_INT(u8, uint8_t, 0.0, 255.0, 0, UINT8_MAX)
OI_TO_INT(u16, uint16_t, 0.0, 65535.0, 0, UINT16_MAX)
OI_TO_INT(u32, uint32_t, 0.0, 4294967295.0, 0, UINT32_MAX)
OI_TO_INT(u64, uint64_t, 0.0, 18446744073709551616.0, 0, UINT64_MAX)
/* Integer to integer, saturating (ops.md cast): through int64_t, or from a u64 / to a u64. */
static inline OI_HELPER int64_t oi_sat_i64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}
static inline OI_HELPER int64_t oi_sat_from_u64(uint64_t v, int64_t hi) {
  return v > (uint64_t)hi ? hi : (int64_t)v;
}
static inline OI_HELPER uint64_t oi_sat_to_u64(int64_t v) { return v < 0 ? 0u : (uint64_t)v; }
static inline OI_HELPER int32_t oi_clamp_i32(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

)C";

// ops.md's cast between f32, f64 and i32: float -> float and int -> float round to nearest
// (C's conversions); float -> i32 rounds with rounding_mode, then saturates (NaN -> 0).
bool narrow_float(const std::string& d) {
  return d == "f16" || d == "bf16" || d == "f8";
}

// The value range of a packed integer dtype (t1 and t2 are storage only: no op takes them).
std::pair<int, int> packed_range(const std::string& d, const std::string& where) {
  if (d == "t1" || d == "t2")
    throw LibraryInstead("c emitter: " + where + " on " + d +
                         " (storage only): left to the C kernel library");
  const int bits = static_cast<int>(packed_bits(d));
  if (d[0] == 'i') return {-(1 << (bits - 1)), (1 << (bits - 1)) - 1};
  return {0, (1 << bits) - 1};
}

// Whole-byte integers other than i32 (i8 i16 i64 u8 u16 u32 u64): their range as int64_t
// bounds (u64's top is past it: its casts are special-cased).
bool wide_int(const std::string& d) {
  return d == "i8" || d == "i16" || d == "i64" || d == "u8" || d == "u16" || d == "u32" ||
         d == "u64";
}
std::pair<std::string, std::string> int_range(const std::string& d) {
  if (d == "i8") return {"INT8_MIN", "INT8_MAX"};
  if (d == "i16") return {"INT16_MIN", "INT16_MAX"};
  if (d == "i32") return {"INT32_MIN", "INT32_MAX"};
  if (d == "i64") return {"INT64_MIN", "INT64_MAX"};
  if (d == "u8") return {"0", "UINT8_MAX"};
  if (d == "u16") return {"0", "UINT16_MAX"};
  if (d == "u32") return {"0", "(int64_t)UINT32_MAX"};
  return {"0", "INT64_MAX"};
}

std::string cast_expr(const std::string& x, const std::string& from, const std::string& to,
                      const json::object& settings, const std::string& where);

// Casts with a whole-byte integer other than i32 on either side (ops.md: integer -> integer
// saturates; float -> integer rounds with rounding_mode, then saturates, NaN to 0; integer ->
// float rounds to nearest, C's conversion; to f16/bf16/f8 through f64, exact for 32 bits).
std::string wide_int_cast(const std::string& x, const std::string& from, const std::string& to,
                          const json::object& settings, const std::string& where) {
  const std::string T = c_type(to);
  const bool from_int = from == "i32" || wide_int(from) || from == "bool";
  const bool to_int = to == "i32" || wide_int(to);
  if (from_int && to_int) {
    if (from == "bool") return "(" + T + ")" + x;
    if (to == "u64") return from == "u64" ? x : "(uint64_t)oi_sat_to_u64((int64_t)" + x + ")";
    const auto [lo, hi] = int_range(to);
    if (from == "u64") return "(" + T + ")oi_sat_from_u64(" + x + ", " + hi + ")";
    return "(" + T + ")oi_sat_i64((int64_t)" + x + ", " + lo + ", " + hi + ")";
  }
  if (from_int && (to == "f32" || to == "f64")) return "(" + T + ")" + x;
  if (from_int && (to == "f16" || to == "bf16" || to == "f8")) {
    if (from == "i64" || from == "u64")  // through f64 would round twice
      throw LibraryInstead("c emitter: " + where + " from " + from + " to " + to +
                           ": left to the C kernel library");
    return "oi_f64_to_" + to + "((double)" + x + ")";
  }
  if (to_int && (from == "f32" || from == "f64")) {
    if (settings.contains("saturate") && !settings.at("saturate").as_bool())
      throw LibraryInstead("c emitter: " + where +
                           " with saturate=false: left to the C kernel library");
    const std::string mode =
        settings.contains("rounding_mode") ? str(settings.at("rounding_mode")) : "trunc";
    const std::string d = "(double)" + x;
    const std::string r = mode == "trunc"          ? "trunc(" + d + ")"
                          : mode == "floor"        ? "floor(" + d + ")"
                          : mode == "ceil"         ? "ceil(" + d + ")"
                          : mode == "nearest_even" ? "nearbyint(" + d + ")"
                                                   : "";
    if (r.empty()) throw LibraryInstead("c emitter: " + where + ": rounding_mode " + mode);
    return "oi_to_" + to + "_d(" + r + ")";
  }
  if (to_int && (from == "f16" || from == "bf16" || from == "f8"))
    return wide_int_cast("oi_" + from + "_to_f32(" + x + ")", "f32", to, settings, where);
  throw LibraryInstead("c emitter: " + where + " from " + from + " to " + to +
                       ": left to the C kernel library");
}

std::string cast_expr(const std::string& x, const std::string& from, const std::string& to,
                      const json::object& settings, const std::string& where) {
  const std::string T = c_type(to);
  if (from == to) return x;
  // Wrapping casts (saturate=false) and casts to bool (non-zero) are the C kernel library's.
  if (settings.contains("saturate") && settings.at("saturate").is_bool() &&
      !settings.at("saturate").as_bool())
    throw LibraryInstead("c emitter: " + where +
                         " with saturate=false: left to the C kernel library");
  if (to == "bool" || to == "bitset")
    throw LibraryInstead("c emitter: " + where + " to " + to + ": left to the C kernel library");
  if (wide_int(from) && packed_bits(to)) {  // saturated to i32 first, then to the narrow range
    const std::string i32 = "i32";
    return cast_expr(wide_int_cast(x, from, i32, settings, where), i32, to, settings, where);
  }
  if (wide_int(from) || wide_int(to)) {
    if (packed_bits(from)) return wide_int_cast(x, "i32", to, settings, where);
    return wide_int_cast(x, from, to, settings, where);
  }
  // Packed integers compute as int32_t: one from a packed dtype is an i32 value; one to a
  // packed dtype is rounded like an i32 (ops.md), then clamped to its range (saturate=true).
  if (packed_bits(from)) {
    packed_range(from, where);
    return cast_expr(x, "i32", to, settings, where);
  }
  if (packed_bits(to)) {
    const auto [lo, hi] = packed_range(to, where);
    if (from != "i32" && from != "f32" && from != "f64" && !narrow_float(from))
      throw LibraryInstead("c emitter: " + where + " from " + from + " to " + to +
                           ": left to the C kernel library");
    return "oi_clamp_i32(" + cast_expr(x, from, "i32", settings, where) + ", " +
           std::to_string(lo) + ", " + std::to_string(hi) + ")";
  }
  // 16- and 8-bit floats: widened exactly to f32, narrowed once from f32 or f64 (an i32 goes
  // through f64, where it is exact, so the result is rounded once).
  if (narrow_float(from))
    return cast_expr("oi_" + from + "_to_f32(" + x + ")", "f32", to, settings, where);
  if (narrow_float(to)) {
    if (from == "f64") return "oi_f64_to_" + to + "(" + x + ")";
    if (from == "f32") return "oi_f32_to_" + to + "(" + x + ")";
    if (from == "i32") return "oi_f64_to_" + to + "((double)" + x + ")";
    throw LibraryInstead("c emitter: " + where + " from " + from + " to " + to +
                         ": left to the C kernel library");
  }
  if (to != "i32") return "(" + T + ")" + x;
  if (from == "i32") return x;
  if (settings.contains("saturate") && !settings.at("saturate").as_bool())
    throw LibraryInstead("c emitter: " + where +
                         " with saturate=false: left to the C kernel library");
  const std::string mode =
      settings.contains("rounding_mode") ? str(settings.at("rounding_mode")) : "trunc";
  const std::string f = from == "f32" ? "f" : "";
  const std::string r = mode == "trunc"          ? "trunc" + f + "(" + x + ")"
                        : mode == "floor"        ? "floor" + f + "(" + x + ")"
                        : mode == "ceil"         ? "ceil" + f + "(" + x + ")"
                        : mode == "nearest_even" ? "nearbyint" + f + "(" + x + ")"
                                                 : "";
  if (r.empty()) throw LibraryInstead("c emitter: " + where + ": rounding_mode " + mode);
  return "oi_to_i32_" + std::string(from == "f32" ? "f" : "d") + "(" + r + ")";
}

std::string arith(const ElementwiseCall& e);

// f16, bf16, f8: the f32 expression over the widened operands, rounded once to the output
// dtype; settings (alpha, clamps, div_by_zero_mask) are f32 as the CPU backend reads them.
// fill rounds its value once from f64, as the simulator fills a tensor.
std::string narrow_float_arith(const ElementwiseCall& e) {
  if (e.op == "fill") {
    check_settings(e.settings, {"value"}, e.where);
    return e.settings.contains("value") ? literal(e.settings.at("value"), e.dtype, "fill value")
                                        : "(" + std::string(c_type(e.dtype)) + ")0u";
  }
  std::vector<std::string> wide;
  for (const auto& x : e.args) wide.push_back("oi_" + e.dtype + "_to_f32(" + x + ")");
  const std::string f32 = "f32";
  return "oi_f32_to_" + e.dtype + "(" + arith({e.op, f32, f32, wide, e.settings, e.where}) + ")";
}

// Integer div (ops.md): truncation toward zero, INT_MIN / -1 wraps (negated through the
// unsigned type U), a zero divisor gives div_by_zero_mask or 0 (the CPU backend's int_div).
std::string int_div(const ElementwiseCall& e, const std::string& T, const std::string& U,
                    bool is_signed) {
  check_settings(e.settings, {"div_by_zero_mask"}, e.where);
  const std::string &a = e.args[0], &b = e.args[1];
  const std::string mask =
      e.settings.contains("div_by_zero_mask")
          ? literal(e.settings.at("div_by_zero_mask"), e.dtype, "div_by_zero_mask")
          : "(" + T + ")0";
  const std::string minus_a = "(" + T + ")((" + U + ")0 - (" + U + ")" + a + ")";
  if (!is_signed) return "(" + b + " == 0 ? " + mask + " : (" + T + ")(" + a + " / " + b + "))";
  return "(" + b + " == 0 ? " + mask + " : " + b + " == -1 ? " + minus_a + " : (" + T + ")(" + a +
         " / " + b + "))";
}

// Whole-byte integers other than i32: wrapped through an unsigned type as wide (uint32_t for
// 8, 16 and 32 bits: no promotion to int can overflow), then converted back (modulo 2^width).
std::string wide_int_arith(const ElementwiseCall& e) {
  const std::string T = c_type(e.dtype);
  const std::string U = e.dtype == "i64" || e.dtype == "u64" ? "uint64_t" : "uint32_t";
  const bool is_signed = e.dtype[0] == 'i';
  const auto& a = e.args;
  if (e.op == "div") return int_div(e, T, U, is_signed);
  check_settings(e.settings,
                 e.op == "fill" ? std::vector<std::string>{"value"} : std::vector<std::string>{},
                 e.where);
  auto wrap = [&](const char* sym) {
    return "(" + T + ")((" + U + ")" + a[0] + " " + sym + " (" + U + ")" + a[1] + ")";
  };
  if (e.op == "add") return wrap("+");
  if (e.op == "sub") return wrap("-");
  if (e.op == "mul") return wrap("*");
  if (e.op == "neg") return "(" + T + ")((" + U + ")0 - (" + U + ")" + a[0] + ")";
  if (e.op == "abs")
    return is_signed ? "(" + a[0] + " < 0 ? (" + T + ")((" + U + ")0 - (" + U + ")" + a[0] +
                           ") : " + a[0] + ")"
                     : a[0];
  if (e.op == "min") return "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
  if (e.op == "max") return "(" + a[1] + " > " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
  if (e.op == "fill")
    return e.settings.contains("value") ? literal(e.settings.at("value"), e.dtype, "fill value")
                                        : "(" + T + ")0";
  throw LibraryInstead("c emitter: " + e.where + " on " + e.dtype +
                       ": left to the C kernel library");
}

// Packed integers: the i32 expression (wrapping through uint32_t), wrapped to the width.
std::string packed_arith(const ElementwiseCall& e) {
  packed_range(e.dtype, e.where);  // refuses the storage-only t1 and t2
  static const std::set<std::string> ops = {"add", "sub", "mul", "div", "neg",
                                            "abs", "min", "max", "fill"};
  if (!ops.count(e.op))
    throw LibraryInstead("c emitter: " + e.where + " on " + e.dtype +
                         ": left to the C kernel library");
  if (e.op == "fill") {
    check_settings(e.settings, {"value"}, e.where);
    return e.settings.contains("value") ? literal(e.settings.at("value"), e.dtype, "fill value")
                                        : std::string("(int32_t)0");
  }
  const std::string i32 = "i32";
  return "oi_wrap_" + e.dtype + "(" + arith({e.op, i32, i32, e.args, e.settings, e.where}) + ")";
}

std::string arith(const ElementwiseCall& e) {
  const std::string &op = e.op, &dtype = e.dtype, &where = e.where;
  const auto& a = e.args;
  const auto& settings = e.settings;
  const bool flt = dtype != "i32";
  if (op == "cast" && (narrow_float(dtype) || narrow_float(e.from_dtype) || packed_bits(dtype) ||
                       packed_bits(e.from_dtype) || wide_int(dtype) || wide_int(e.from_dtype))) {
    check_settings(settings, {"to", "rounding_mode", "saturate"}, where);
    return cast_expr(a[0], e.from_dtype, dtype, settings, where);
  }
  if (narrow_float(dtype)) return narrow_float_arith(e);
  if (packed_bits(dtype)) return packed_arith(e);
  if (wide_int(dtype)) return wide_int_arith(e);
  if (dtype != "f32" && dtype != "f64" && dtype != "i32")
    throw LibraryInstead("c emitter: " + where + " on " + dtype + ": left to the C kernel library");
  const std::set<std::string> allowed =
      op == "div"    ? std::set<std::string>{"div_by_zero_mask"}
      : op == "fill" ? std::set<std::string>{"value"}
      : op == "cast" ? std::set<std::string>{"to", "rounding_mode", "saturate"}
      : op == "relu" ? std::set<std::string>{"alpha", "negative_slope", "clamp_min", "clamp_max"}
                     : std::set<std::string>{};
  for (const auto& kv : settings)
    if (!allowed.count(std::string(kv.key())))
      throw LibraryInstead("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                           "': left to the C kernel library");
  auto setting = [&](const char* key, const char* fallback) {
    return settings.contains(key) ? literal(settings.at(key), dtype, key)
                                  : std::string("(") + c_type(dtype) + ")" + fallback;
  };
  auto wrap = [&](const char* sym) {
    return "(int32_t)((uint32_t)" + a[0] + " " + sym + " (uint32_t)" + a[1] + ")";
  };
  if (op == "add") return flt ? "(" + a[0] + " + " + a[1] + ")" : wrap("+");
  if (op == "sub") return flt ? "(" + a[0] + " - " + a[1] + ")" : wrap("-");
  if (op == "mul") return flt ? "(" + a[0] + " * " + a[1] + ")" : wrap("*");
  if (op == "neg") return flt ? "(-" + a[0] + ")" : "(int32_t)(0u - (uint32_t)" + a[0] + ")";
  const std::string sfx = dtype == "f32" ? "f" : dtype == "f64" ? "d" : "i";
  if (op == "abs")
    return flt ? (dtype == "f32" ? "fabsf(" : "fabs(") + a[0] + ")"
               : "(" + a[0] + " < 0 ? (int32_t)(0u - (uint32_t)" + a[0] + ") : " + a[0] + ")";
  if (op == "min" || op == "max") return "oi_" + op + "_" + sfx + "(" + a[0] + ", " + a[1] + ")";
  if (op == "relu" && flt && settings.empty()) return "oi_relu0_" + sfx + "(" + a[0] + ")";
  if (op == "relu" && flt) {
    const std::string alpha =
        settings.contains("alpha") ? setting("alpha", "0") : setting("negative_slope", "0");
    return "oi_relu_" + sfx + "(" + a[0] + ", " + alpha + ", " + setting("clamp_min", "-INFINITY") +
           ", " + setting("clamp_max", "INFINITY") + ")";
  }
  if (op == "fill")
    return settings.contains("value") ? literal(settings.at("value"), dtype, "fill value")
                                      : std::string("(") + c_type(dtype) + ")0";
  if (op == "cast") return cast_expr(a[0], e.from_dtype, dtype, settings, where);
  if (op == "div" && flt) {
    if (settings.contains("div_by_zero_mask"))
      return "(" + a[1] + " == 0 ? " +
             literal(settings.at("div_by_zero_mask"), dtype, "div_by_zero_mask") + " : " + a[0] +
             " / " + a[1] + ")";
    return "(" + a[0] + " / " + a[1] + ")";
  }
  if (op == "div") return int_div(e, "int32_t", "uint32_t", true);
  throw LibraryInstead("c emitter: " + where + " on " + dtype + ": left to the C kernel library");
}

}  // namespace

void register_arith_ops(OpTable& t) {
  for (const char* op :
       {"add", "sub", "mul", "div", "neg", "abs", "min", "max", "relu", "fill", "cast"})
    t.elementwise[op] = arith;
  t.helpers.push_back(kArithHelpersC);
}

}  // namespace oi::c_emitter
