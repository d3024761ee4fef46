// iota: y has x's shape and dtype, and every element is its index along `axis` (default -1).
// Integer and float dtypes; floats get the index rounded once to the dtype, integers the
// index wrapped at the dtype's width like any integer result. x's values are not read.
#include "../axis.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

oi_status* iota_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const AxisSplit s(call->inputs[0], call_axis(*call, "iota", -1));
  const ElemIO& io = elem_io(call->outputs[0].dtype);
  std::byte* out = output_data(*call, 0);
  const uint64_t n = s.outer * s.len * s.inner;
  const uint64_t blocks = (n + kPackedAlign - 1) / kPackedAlign;
  parallel_ranges(blocks, kPackedAlign, [&](uint64_t b0, uint64_t b1) {
    for (uint64_t i = b0 * kPackedAlign, end = std::min(n, b1 * kPackedAlign); i < end; ++i) {
      const uint64_t index = i / s.inner % s.len;
      if (io.is_float) {
        io.st_f64(out, i, static_cast<double>(index));
      } else {
        io.st_i(out, i, static_cast<int64_t>(index));
      }
    }
  });
  OI_ABI_CATCH(call->host)
}

void register_iota(KernelList& list) {
  add_each(list, "iota", {kFloats, kSigned, kUnsigned}, 1, &iota_kernel, false);
}

const KernelRegistration registration(register_iota);

}  // namespace
}  // namespace oi::cpu
