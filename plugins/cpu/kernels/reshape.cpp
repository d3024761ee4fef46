// reshape: the output (its declared shape, same element count) holds the input's elements in
// row-major order, so the bytes are copied as they are. Every dtype but t1/t2, bit-exact.
#include <cstring>

#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

namespace oi::cpu {
namespace {

oi_status* reshape_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const ElementMover mover(call->inputs[0].dtype);
  const uint64_t n = abi::element_count(call->inputs[0]);
  if (n > 0) std::memmove(output_data(*call, 0), input_data(*call, 0), mover.bytes(n));
  OI_ABI_CATCH(call->host)
}

void register_reshape(KernelList& list) {
  add_each(list, "reshape", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, 1,
           &reshape_kernel, false);
}

const KernelRegistration registration(register_reshape);

}  // namespace
}  // namespace oi::cpu
