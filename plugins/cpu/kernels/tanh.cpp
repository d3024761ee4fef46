// tanh: hyperbolic tangent (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Tanh; }
  double operator()(double a) const { return std::tanh(a); }
};

void register_tanh(KernelList& list) {
  add_float_math<1, Op>(list, "tanh");
}

const KernelRegistration registration(register_tanh);

}  // namespace
}  // namespace oi::cpu
