// clamp: min(max(a, min), max) with the min/max rules of ops.md; NaN stays NaN. For integers
// the +-inf defaults mean unbounded.
#include <cmath>

#include "../generic_elementwise.hpp"
#include "../minmax.hpp"

namespace oi::cpu {
namespace {

struct Clamp {
  double lo, hi;
  bool has_lo, has_hi;
  int64_t ilo = 0, ihi = 0;

  static Clamp from(const oi_kernel_call& call) {
    Clamp c{abi::setting_float(call, "min", -HUGE_VAL), abi::setting_float(call, "max", HUGE_VAL),
            false, false};
    c.has_lo = std::isfinite(c.lo);
    c.has_hi = std::isfinite(c.hi);
    // The host checked that an integer dtype's finite bounds are integers that fit.
    if (!elem_io(call.inputs[0].dtype).is_float) {
      if (c.has_lo) c.ilo = abi::setting_int(call, "min", 0);
      if (c.has_hi) c.ihi = abi::setting_int(call, "max", 0);
    }
    return c;
  }
  template <class F>
  F fl(F a) const {
    return float_min(float_max(a, static_cast<F>(lo)), static_cast<F>(hi));
  }
  int64_t in(int64_t a, const ElemIO& t) const {
    if (has_lo) a = int_max(a, ilo, t);
    if (has_hi) a = int_min(a, ihi, t);
    return a;
  }
};

void register_clamp(KernelList& list) {
  add_each(list, "clamp", {kFloats, kSigned, kUnsigned}, 1, &generic_kernel<1, Clamp>, true);
}

const KernelRegistration registration(register_clamp);

}  // namespace
}  // namespace oi::cpu
