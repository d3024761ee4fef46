// cast: to the output dtype (ops.md). float -> integer first rounds with rounding_mode
// (trunc, floor, ceil, nearest_even), then saturate=true clamps (NaN -> 0) while
// saturate=false wraps modulo 2^width (NaN, inf -> 0). integer -> integer saturates or wraps
// the same way. -> bool is x != 0 (NaN is true); bool -> anything is 0 or 1.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string_view>

#include "../cpu_status.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../unary_elementwise.hpp"

namespace oi::cpu {
namespace {

enum class Rounding { Trunc, Floor, Ceil, NearestEven };

Rounding rounding_setting(const oi_kernel_call& call) {
  std::string_view mode = abi::setting_string(call, "rounding_mode", "trunc");
  if (mode == "trunc") return Rounding::Trunc;
  if (mode == "floor") return Rounding::Floor;
  if (mode == "ceil") return Rounding::Ceil;
  if (mode == "nearest_even") return Rounding::NearestEven;
  fail(OI_STATUS_INVALID_ARGUMENT, "cast: unknown rounding_mode '" + std::string(mode) + "'");
}

double round_with(double x, Rounding r) {
  switch (r) {
    case Rounding::Trunc:
      return std::trunc(x);
    case Rounding::Floor:
      return std::floor(x);
    case Rounding::Ceil:
      return std::ceil(x);
    case Rounding::NearestEven:
      break;
  }
  // std::nearbyint rounds half to even in the default rounding mode, which is never changed.
  return std::nearbyint(x);
}

// An integral double reduced modulo 2^64 into [-2^63, 2^63), exactly.
int64_t wrap_to_int64(double r) {
  constexpr double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  double m = std::fmod(r, two64);  // exact, |m| < 2^64, sign of r
  if (m >= two63) m -= two64;      // exact: both are multiples of m's ulp
  if (m < -two63) m += two64;
  return static_cast<int64_t>(m);
}

template <class Out>
Out float_to_int(double x, Rounding rounding, bool saturate) {
  constexpr double lo = static_cast<double>(std::numeric_limits<Out>::min());  // exact
  // 2^(bits-1) or 2^bits: the first value above the range, exact in double.
  constexpr double above =
      std::is_signed_v<Out> ? -lo
                            : 2.0 * (static_cast<double>(std::numeric_limits<Out>::max() / 2 + 1));
  if (std::isnan(x)) return Out{0};
  if (saturate) {
    double r = round_with(x, rounding);
    if (r < lo) return std::numeric_limits<Out>::min();
    if (r >= above) return std::numeric_limits<Out>::max();
    return static_cast<Out>(r);
  }
  if (std::isinf(x)) return Out{0};
  return static_cast<Out>(static_cast<uint64_t>(wrap_to_int64(round_with(x, rounding))));
}

template <class Out, class In>
Out int_to_int(In v, bool saturate) {
  if (saturate) {
    using Wide = __int128;
    Wide w = static_cast<Wide>(v);
    if (w < static_cast<Wide>(std::numeric_limits<Out>::min())) {
      return std::numeric_limits<Out>::min();
    }
    if (w > static_cast<Wide>(std::numeric_limits<Out>::max())) {
      return std::numeric_limits<Out>::max();
    }
  }
  return static_cast<Out>(v);  // modulo 2^width (C++20)
}

template <class In, class Out>
struct Cast {
  Rounding rounding;
  bool saturate;
  Out operator()(In v) const {
    if constexpr (std::is_same_v<Out, bool>) {
      return v != In{0};
    } else if constexpr (std::is_same_v<In, bool>) {
      return static_cast<Out>(v ? 1 : 0);
    } else if constexpr (std::is_floating_point_v<Out>) {
      return static_cast<Out>(v);  // round to nearest even, overflow to inf, NaN kept
    } else if constexpr (std::is_floating_point_v<In>) {
      return float_to_int<Out>(static_cast<double>(v), rounding, saturate);
    } else {
      return int_to_int<Out>(v, saturate);
    }
  }
};

template <class In, class Out>
oi_status* cast_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  Cast<In, Out> cast{rounding_setting(*call), abi::setting_bool(*call, "saturate", true)};
  unary_elementwise<In, Out>(*call, cast);
  OI_ABI_CATCH(call->host)
}

template <class In, class... Out>
void add_casts_from(KernelList& list) {
  (list.add("cast", {dtype_tag_v<In>}, dtype_tag_v<Out>, OI_KERNEL_MODE_NORMAL,
            &cast_kernel<In, Out>),
   ...);
}

template <class... T>
void add_casts(KernelList& list) {
  (add_casts_from<T, T...>(list), ...);
}

// --- The type-erased path: every pair with a narrow float, packed integer or bitset side. ---

// The integer as a double rounded to odd at 53 bits: exact below 2^53, and rounding that once
// more to a format of <= 24 significant bits gives the correctly rounded result.
double int_to_double_odd(int64_t v, bool is_signed) {
  const bool negative = is_signed && v < 0;
  const uint64_t m = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int width = std::bit_width(m);
  if (width <= 53) return negative ? -static_cast<double>(m) : static_cast<double>(m);
  const int shift = width - 53;
  uint64_t q = m >> shift;
  if ((m & ((uint64_t{1} << shift) - 1)) != 0) q |= 1;  // sticky
  const double r = std::ldexp(static_cast<double>(q), shift);
  return negative ? -r : r;
}

int64_t generic_float_to_int(double x, Rounding rounding, bool saturate, const ElemIO& t) {
  if (std::isnan(x)) return 0;
  if (saturate) {
    const double r = round_with(x, rounding);
    const double lo = static_cast<double>(t.min_value());  // exact: 0 or -2^(bits-1)
    const double above = std::ldexp(1.0, static_cast<int>(t.is_signed ? t.bits - 1 : t.bits));
    if (r < lo) return t.min_value();
    if (r >= above) return static_cast<int64_t>(t.max_bits());
    if (r >= 9223372036854775808.0) return static_cast<int64_t>(static_cast<uint64_t>(r));
    return static_cast<int64_t>(r);
  }
  if (std::isinf(x)) return 0;
  return wrap_to_int64(round_with(x, rounding));  // the store keeps the low bits
}

int64_t generic_int_to_int(int64_t v, const ElemIO& from, const ElemIO& to, bool saturate) {
  if (!saturate) return v;  // the store keeps the low bits
  const __int128 w = from.is_signed ? __int128{v} : __int128{static_cast<uint64_t>(v)};
  if (w < to.min_value()) return to.min_value();
  if (w > static_cast<__int128>(to.max_bits())) return static_cast<int64_t>(to.max_bits());
  return v;
}

oi_status* generic_cast_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const Rounding rounding = rounding_setting(*call);
  const bool saturate = abi::setting_bool(*call, "saturate", true);
  const ElemIO& from = elem_io(call->inputs[0].dtype);
  const ElemIO& to = elem_io(call->outputs[0].dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  for_each_element<1>(*call, [&](uint64_t o, const std::array<uint64_t, 1>& idx) {
    const uint64_t i = idx[0];
    if (from.is_float) {
      const double x = from.ld_f64(in, i);  // exact for every float dtype
      if (to.is_bool) {
        to.st_i(out, o, x != 0.0 || std::isnan(x));
      } else if (to.is_float) {
        to.st_f64(out, o, x);  // one rounding to nearest even; inf and NaN kept
      } else {
        to.st_i(out, o, generic_float_to_int(x, rounding, saturate, to));
      }
      return;
    }
    const int64_t v = from.ld_i(in, i);  // bool: 0 or 1
    if (to.is_bool) {
      to.st_i(out, o, v != 0);
    } else if (!to.is_float) {
      to.st_i(out, o, generic_int_to_int(v, from, to, saturate));
    } else if (to.tag == OI_DTYPE_F32) {
      to.st_f32(
          out, o,
          from.is_signed ? static_cast<float>(v) : static_cast<float>(static_cast<uint64_t>(v)));
    } else if (to.tag == OI_DTYPE_F64) {
      to.st_f64(
          out, o,
          from.is_signed ? static_cast<double>(v) : static_cast<double>(static_cast<uint64_t>(v)));
    } else {
      to.st_f64(out, o, int_to_double_odd(v, from.is_signed));
    }
  });
  OI_ABI_CATCH(call->host)
}

void register_cast(KernelList& list) {
  const DTypes templated = {dt::F32, dt::F64, dt::I8,  dt::I16, dt::I32, dt::I64,
                            dt::U8,  dt::U16, dt::U32, dt::U64, dt::BOOL};
  const DTypes all = {dt::I8,  dt::I16, dt::I32, dt::I64,  dt::U8,  dt::U16, dt::U32,
                      dt::U64, dt::F8,  dt::F16, dt::BF16, dt::F32, dt::F64, dt::I1,
                      dt::I2,  dt::I4,  dt::U1,  dt::U2,   dt::U4,  dt::BOOL};
  auto is_templated = [&](uint32_t t) {
    return std::find(templated.begin(), templated.end(), t) != templated.end();
  };
  for (uint32_t from : all) {
    for (uint32_t to : all) {
      if (is_templated(from) && is_templated(to)) continue;
      list.add("cast", {from}, to, OI_KERNEL_MODE_NORMAL, &generic_cast_kernel);
    }
  }
  add_casts<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
            bool>(list);
}

const KernelRegistration registration(register_cast);

}  // namespace
}  // namespace oi::cpu
