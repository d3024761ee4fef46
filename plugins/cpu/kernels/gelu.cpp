// gelu (ops-nn.md, ONNX Gelu opset 20), F dtypes, normal and in place.
// approximate="none": a * Phi(a) = a/2 * erfc(-a/sqrt(2)) (erfc, not 1 + erf, so that large
// negative a keeps its relative accuracy); "tanh": a/2 * (1 + tanh(u)) with
// u = sqrt(2/pi) * (a + 0.044715 a^3), computed as a / (1 + e^(-2u)) for the same reason.
#include <cmath>
#include <string>

#include "../cpu_status.hpp"
#include "../float_math.hpp"

namespace oi::cpu {
namespace {

struct Op {
  bool tanh_form = false;
  static Op from(const oi_kernel_call& call) {
    const std::string_view mode = abi::setting_string(call, "approximate", "none");
    if (mode != "none" && mode != "tanh")
      fail(OI_STATUS_INVALID_ARGUMENT, "gelu: unknown approximate '" + std::string(mode) + "'");
    return Op{mode == "tanh"};
  }
  vmath::Func vector_func() const {
    return tanh_form ? vmath::Func::GeluTanh : vmath::Func::GeluErf;
  }
  double operator()(double a) const {
    if (tanh_form) {
      const double u = 0.7978845608028654 * (a + 0.044715 * a * a * a);
      return a / (1.0 + std::exp(-2.0 * u));
    }
    return a * 0.5 * std::erfc(-a * 0.7071067811865476);
  }
};

void register_gelu(KernelList& list) {
  add_float_math<1, Op>(list, "gelu");
}

const KernelRegistration registration(register_gelu);

}  // namespace
}  // namespace oi::cpu
