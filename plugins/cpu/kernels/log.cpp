// log: the natural logarithm (ops-nn.md "Elementwise math"), F dtypes, normal and in place.
#include <cmath>

#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  vmath::Func vector_func() const { return vmath::Func::Log; }
  double operator()(double a) const { return std::log(a); }
};

void register_log(KernelList& list) {
  add_float_math<1, Op>(list, "log");
}

const KernelRegistration registration(register_log);

}  // namespace
}  // namespace oi::cpu
