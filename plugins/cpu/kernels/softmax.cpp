// softmax over `axis` (default -1), F dtypes: see softmax.hpp.
#include "../softmax.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

void register_softmax(KernelList& list) {
  add_each(list, "softmax", {kFloats}, 1, &softmax_kernel<false>, false);
}

const KernelRegistration registration(register_softmax);

}  // namespace
}  // namespace oi::cpu
