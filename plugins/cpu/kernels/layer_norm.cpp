// layer_norm(x, scale[, bias]) over `axis` (default -1) to the last axis, F dtypes: see norm.hpp.
#include "../generic_elementwise.hpp"
#include "../norm.hpp"

namespace oi::cpu {
namespace {

void register_layer_norm(KernelList& list) {
  add_each(list, "layer_norm", {kFloats}, 2, &norm_kernel<false>, false);
  add_each(list, "layer_norm", {kFloats}, 3, &norm_kernel<false>, false);
}

const KernelRegistration registration(register_layer_norm);

}  // namespace
}  // namespace oi::cpu
