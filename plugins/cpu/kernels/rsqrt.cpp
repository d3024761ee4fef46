// rsqrt: 1 / sqrt(a) (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Rsqrt; }
  double operator()(double a) const { return 1.0 / std::sqrt(a); }
};

void register_rsqrt(KernelList& list) {
  add_float_math<1, Op>(list, "rsqrt");
}

const KernelRegistration registration(register_rsqrt);

}  // namespace
}  // namespace oi::cpu
