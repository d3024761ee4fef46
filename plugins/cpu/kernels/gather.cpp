// gather(data, indices): data's `axis` (default 0) replaced by the indices' dims, each index
// (i32 or i64; negative counts from the end) selecting a slice. Every data dtype but t1/t2,
// bit-exact. All indices are checked before anything is written: one out of range is an error
// naming the op, the index and the bound, never a read outside the tensor.
#include <string>
#include <vector>

#include "../axis.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

namespace oi::cpu {
namespace {

oi_status* gather_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const uint32_t axis = call_axis(*call, "gather", 0);
  const AxisSplit data(call->inputs[0], axis);
  const oi_tensor_desc& idx_desc = call->inputs[1];
  const uint64_t count = abi::element_count(idx_desc);
  const std::byte* idx_data = input_data(*call, 1);
  const auto bound = static_cast<int64_t>(data.len);
  std::vector<uint64_t> rows(count);
  for (uint64_t k = 0; k < count; ++k) {
    const int64_t i =
        idx_desc.dtype == OI_DTYPE_I32 ? load<int32_t>(idx_data, k) : load<int64_t>(idx_data, k);
    if (i < -bound || i >= bound)
      fail(OI_STATUS_INVALID_ARGUMENT,
           "gather: index " + std::to_string(i) + " is out of range for axis " +
               std::to_string(axis) + " of size " + std::to_string(bound) + " (allowed " +
               std::to_string(-bound) + ".." + std::to_string(bound - 1) + ")");
    rows[k] = static_cast<uint64_t>(i < 0 ? i + bound : i);
  }
  const ElementMover mover(call->inputs[0].dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  auto copy = [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {  // r = outer index * count + k
      const uint64_t o = r / count, k = r % count;
      mover.run(out, r * data.inner, in, (o * data.len + rows[k]) * data.inner, data.inner);
    }
  };
  const uint64_t total = data.outer * count;
  if (mover.packed()) {
    copy(0, total);  // runs need not start on a byte: one thread writes
  } else {
    parallel_ranges(total, data.inner, copy);
  }
  OI_ABI_CATCH(call->host)
}

void register_gather(KernelList& list) {
  for (uint32_t index : {dt::I32, dt::I64})
    for (DTypes g : {kFloats, kSigned, kUnsigned, DTypes{dt::BOOL, dt::BITSET}})
      for (uint32_t t : g) list.add("gather", {t, index}, t, OI_KERNEL_MODE_NORMAL, &gather_kernel);
}

const KernelRegistration registration(register_gather);

}  // namespace
}  // namespace oi::cpu
