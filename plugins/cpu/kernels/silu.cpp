// silu: a * sigmoid(a), computed as a / (1 + e^-a) (ops-nn.md "Elementwise math"), F dtypes, normal
// and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Silu; }
  double operator()(double a) const { return a / (1.0 + std::exp(-a)); }
};

void register_silu(KernelList& list) {
  add_float_math<1, Op>(list, "silu");
}

const KernelRegistration registration(register_silu);

}  // namespace
}  // namespace oi::cpu
