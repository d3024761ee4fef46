// concat: 1 to 16 inputs of one dtype joined along `axis` (default 0; negative counts from the
// end); every dtype but t1/t2, bit-exact. Per index before the axis, each input contributes one
// contiguous run of (its axis size x the inner size) elements.
#include <string>
#include <vector>

#include "../axis.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

namespace oi::cpu {
namespace {

constexpr uint32_t kMaxInputs = 16;

oi_status* concat_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const uint32_t axis = call_axis(*call, "concat", 0);
  const AxisSplit whole(call->outputs[0], axis);
  std::vector<uint64_t> run(call->num_inputs), offset(call->num_inputs);
  for (uint32_t j = 0, at = 0; j < call->num_inputs; ++j) {
    run[j] = call->inputs[j].dims[axis] * whole.inner;
    offset[j] = at;
    at += run[j];
  }
  const uint64_t row = whole.len * whole.inner;
  const ElementMover mover(call->outputs[0].dtype);
  std::byte* out = output_data(*call, 0);
  auto rows = [&](uint64_t begin, uint64_t end) {
    for (uint64_t o = begin; o < end; ++o)
      for (uint32_t j = 0; j < call->num_inputs; ++j)
        mover.run(out, o * row + offset[j], input_data(*call, j), o * run[j], run[j]);
  };
  if (mover.packed()) {
    rows(0, whole.outer);  // runs need not start on a byte: one thread writes
  } else {
    parallel_ranges(whole.outer, row, rows);
  }
  OI_ABI_CATCH(call->host)
}

void register_concat(KernelList& list) {
  for (uint32_t n = 1; n <= kMaxInputs; ++n)
    add_each(list, "concat", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, n,
             &concat_kernel, false);
}

const KernelRegistration registration(register_concat);

}  // namespace
}  // namespace oi::cpu
