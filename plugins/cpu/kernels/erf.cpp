// erf: the error function (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Erf; }
  double operator()(double a) const { return std::erf(a); }
};

void register_erf(KernelList& list) {
  add_float_math<1, Op>(list, "erf");
}

const KernelRegistration registration(register_erf);

}  // namespace
}  // namespace oi::cpu
