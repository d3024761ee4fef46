// sqrt: the square root, correctly rounded (ops-nn.md "Elementwise math"), F dtypes, normal and in
// place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Sqrt; }
  double operator()(double a) const { return std::sqrt(a); }
};

void register_sqrt(KernelList& list) {
  add_float_math<1, Op>(list, "sqrt");
}

const KernelRegistration registration(register_sqrt);

}  // namespace
}  // namespace oi::cpu
