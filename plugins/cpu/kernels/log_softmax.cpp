// log_softmax over `axis` (default -1), F dtypes: see softmax.hpp.
#include "../generic_elementwise.hpp"
#include "../softmax.hpp"

namespace oi::cpu {
namespace {

void register_log_softmax(KernelList& list) {
  add_each(list, "log_softmax", {kFloats}, 1, &softmax_kernel<true>, false);
}

const KernelRegistration registration(register_log_softmax);

}  // namespace
}  // namespace oi::cpu
