// cast: to the output dtype (ops.md). float -> integer first rounds with rounding_mode
// (trunc, floor, ceil, nearest_even), then saturate=true clamps (NaN -> 0) while
// saturate=false wraps modulo 2^width (NaN, inf -> 0). integer -> integer saturates or wraps
// the same way. -> bool is x != 0 (NaN is true); bool -> anything is 0 or 1.
#include <cmath>
#include <limits>
#include <string_view>

#include "../cpu_status.hpp"
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

void register_cast(KernelList& list) {
  add_casts<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
            bool>(list);
}

const KernelRegistration registration(register_cast);

}  // namespace
}  // namespace oi::cpu
