// cos: cosine (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Cos; }
  double operator()(double a) const { return std::cos(a); }
};

void register_cos(KernelList& list) {
  add_float_math<1, Op>(list, "cos");
}

const KernelRegistration registration(register_cos);

}  // namespace
}  // namespace oi::cpu
