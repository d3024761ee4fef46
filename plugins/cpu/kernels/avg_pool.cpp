// avg_pool(x) -> y (ops-nn.md, ONNX AveragePool): 1-D and 2-D windows with kernel, strides and
// pads; F dtypes. The window's input cells are summed in f32 (f64 for f64) and divided by their
// count, or by the whole kernel size with count_include_pad=true (padded cells add zero); one
// rounding to y's dtype. A window of padding only, not counted, gives 0/0 = NaN.
#include "../dtype_io.hpp"
#include "../element_types.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../pool_window.hpp"

namespace oi::cpu {
namespace {

template <class C>
void avg_pool(const oi_kernel_call& call, const WindowGeometry& g, bool include_pad) {
  const ElemIO& io = elem_io(call.inputs[0].dtype);
  const std::byte* px = input_data(call, 0);
  std::byte* py = output_data(call, 0);
  const bool own_type = io.tag == dtype_tag_v<C>;
  for_each_window(g, false, [&](uint64_t out, const WindowTaps& taps) {
    C sum = 0;
    if (own_type) {
      taps.each([&](uint64_t i) { sum += load<C>(px, i); });
    } else {
      taps.each([&](uint64_t i) { sum += static_cast<C>(io.ld_f32(px, i)); });
    }
    const C avg = sum / static_cast<C>(include_pad ? g.taps() : taps.count());
    if (own_type) {
      store<C>(py, out, avg);
    } else if constexpr (std::is_same_v<C, float>) {
      io.st_f32(py, out, avg);
    }
  });
}

oi_status* avg_pool_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const WindowGeometry g = pool_geometry(*call, "avg_pool", false);
  const bool include_pad = abi::setting_bool(*call, "count_include_pad", false);
  if (call->inputs[0].dtype == OI_DTYPE_F64) {
    avg_pool<double>(*call, g, include_pad);
  } else {
    avg_pool<float>(*call, g, include_pad);
  }
  OI_ABI_CATCH(call->host)
}

void register_avg_pool(KernelList& list) {
  add_each(list, "avg_pool", {kFloats}, 1, &avg_pool_kernel, false);
}

const KernelRegistration registration(register_avg_pool);

}  // namespace
}  // namespace oi::cpu
