// pow(a, b) = a^b as C's pow (ops-nn.md "Elementwise math"), F dtypes with numpy broadcasting,
// normal and in place (the output is input 0).
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  static constexpr bool kVectorPow = true;  // f32: vmath::pow_span
  double operator()(double a, double b) const { return std::pow(a, b); }
};

void register_pow(KernelList& list) {
  add_float_math<2, Op>(list, "pow");
}

const KernelRegistration registration(register_pow);

}  // namespace
}  // namespace oi::cpu
