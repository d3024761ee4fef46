// sin: sine (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Sin; }
  double operator()(double a) const { return std::sin(a); }
};

void register_sin(KernelList& list) {
  add_float_math<1, Op>(list, "sin");
}

const KernelRegistration registration(register_sin);

}  // namespace
}  // namespace oi::cpu
