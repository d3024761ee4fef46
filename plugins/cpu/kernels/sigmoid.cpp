// sigmoid: 1 / (1 + e^-a) (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Sigmoid; }
  double operator()(double a) const { return 1.0 / (1.0 + std::exp(-a)); }
};

void register_sigmoid(KernelList& list) {
  add_float_math<1, Op>(list, "sigmoid");
}

const KernelRegistration registration(register_sigmoid);

}  // namespace
}  // namespace oi::cpu
