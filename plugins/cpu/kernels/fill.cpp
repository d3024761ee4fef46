// fill: every element of the output becomes `value`, converted to the dtype (floats round to
// nearest even; the host checked that an integer value fits).
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../unary_elementwise.hpp"

namespace oi::cpu {
namespace {

template <class T>
T fill_value(const oi_kernel_call& call) {
  if constexpr (std::is_same_v<T, bool>) {
    return abi::setting_float(call, "value", 0.0) != 0.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(abi::setting_float(call, "value", 0.0));
  } else {
    return static_cast<T>(abi::setting_int(call, "value", 0));
  }
}

template <class T>
oi_status* fill_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const T value = fill_value<T>(*call);
  std::byte* out = output_data(*call, 0);
  parallel_ranges(abi::element_count(call->outputs[0]), 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) store<T>(out, i, value);
  });
  OI_ABI_CATCH(call->host)
}

template <class... T>
void add_fill(KernelList& list) {
  for (auto mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    (list.add("fill", {dtype_tag_v<T>}, dtype_tag_v<T>, mode, &fill_kernel<T>), ...);
  }
}

// Narrow floats (one rounding from the setting's double), packed integers and bitset.
oi_status* generic_fill_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const ElemIO& io = elem_io(call->outputs[0].dtype);
  std::byte* out = output_data(*call, 0);
  const uint64_t n = abi::element_count(call->outputs[0]);
  if (io.is_float) {
    const double value = abi::setting_float(*call, "value", 0.0);
    for (uint64_t i = 0; i < n; ++i) io.st_f64(out, i, value);
  } else {
    const int64_t value = abi::setting_int(*call, "value", 0);
    for (uint64_t i = 0; i < n; ++i) io.st_i(out, i, value);
  }
  OI_ABI_CATCH(call->host)
}

void register_fill(KernelList& list) {
  add_each(list, "fill", {kNarrowFloats, kPackedInts, {dt::BITSET}}, 1, &generic_fill_kernel, true);
  add_fill<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
           bool>(list);
}

const KernelRegistration registration(register_fill);

}  // namespace
}  // namespace oi::cpu
