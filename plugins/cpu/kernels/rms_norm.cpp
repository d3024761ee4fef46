// rms_norm(x, scale) over `axis` (default -1) to the last axis, F dtypes: see norm.hpp.
#include "../generic_elementwise.hpp"
#include "../norm.hpp"

namespace oi::cpu {
namespace {

void register_rms_norm(KernelList& list) {
  add_each(list, "rms_norm", {kFloats}, 2, &norm_kernel<true>, false);
}

const KernelRegistration registration(register_rms_norm);

}  // namespace
}  // namespace oi::cpu
