// exp: e^a (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Exp; }
  double operator()(double a) const { return std::exp(a); }
};

void register_exp(KernelList& list) {
  add_float_math<1, Op>(list, "exp");
}

const KernelRegistration registration(register_exp);

}  // namespace
}  // namespace oi::cpu
