// min: elementwise min; a NaN operand gives NaN, -0.0 counts as less than +0.0 (ops.md).
#include "../generic_elementwise.hpp"
#include "../minmax.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  F fl(F a, F b) const {
    return float_min(a, b);
  }
  int64_t in(int64_t a, int64_t b, const ElemIO& t) const { return int_min(a, b, t); }
};

void register_min(KernelList& list) {
  add_each(list, "min", {kFloats, kSigned, kUnsigned}, 2, &generic_kernel<2, Op>, true);
}

const KernelRegistration registration(register_min);

}  // namespace
}  // namespace oi::cpu
