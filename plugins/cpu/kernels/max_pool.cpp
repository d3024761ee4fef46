// max_pool(x) -> y (ops-nn.md, ONNX MaxPool): 1-D and 2-D windows with kernel, strides, pads
// and dilations; every dtype but t1/t2, bit-exact. Padded cells never win; a NaN in a window
// gives NaN and -0.0 counts as less than +0.0 (minmax.hpp, as max_axis). A window that holds
// only padding (pads as large as the kernel) gives the dtype's lowest value (-inf for floats).
#include <cmath>
#include <limits>

#include "../element_types.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../minmax.hpp"
#include "../pool_window.hpp"

namespace oi::cpu {
namespace {

// f32 and f64 read and write their own type; aligned data is the common case of a network.
template <class F>
void max_pool_typed(const oi_kernel_call& call, const WindowGeometry& g) {
  const std::byte* px = input_data(call, 0);
  std::byte* py = output_data(call, 0);
  for_each_window(g, false, [&](uint64_t out, const WindowTaps& taps) {
    F m = -std::numeric_limits<F>::infinity();
    taps.each([&](uint64_t i) { m = float_max(m, load<F>(px, i)); });
    store<F>(py, out, m);
  });
}

// Narrow floats (exact in f64) and every integer, bool and bitset dtype through ElemIO.
void max_pool_generic(const oi_kernel_call& call, const WindowGeometry& g) {
  const ElemIO& io = elem_io(call.inputs[0].dtype);
  const std::byte* px = input_data(call, 0);
  std::byte* py = output_data(call, 0);
  const bool serial = io.bits < 8;
  if (io.is_float) {
    for_each_window(g, serial, [&](uint64_t out, const WindowTaps& taps) {
      double m = -std::numeric_limits<double>::infinity();
      taps.each([&](uint64_t i) { m = float_max(m, io.ld_f64(px, i)); });
      io.st_f64(py, out, m);
    });
  } else {
    for_each_window(g, serial, [&](uint64_t out, const WindowTaps& taps) {
      int64_t m = io.min_value();
      taps.each([&](uint64_t i) { m = int_max(m, io.ld_i(px, i), io); });
      io.st_i(py, out, m);
    });
  }
}

oi_status* max_pool_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const WindowGeometry g = pool_geometry(*call, "max_pool", true);
  if (call->inputs[0].dtype == OI_DTYPE_F32) {
    max_pool_typed<float>(*call, g);
  } else if (call->inputs[0].dtype == OI_DTYPE_F64) {
    max_pool_typed<double>(*call, g);
  } else {
    max_pool_generic(*call, g);
  }
  OI_ABI_CATCH(call->host)
}

void register_max_pool(KernelList& list) {
  add_each(list, "max_pool", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, 1,
           &max_pool_kernel, false);
}

const KernelRegistration registration(register_max_pool);

}  // namespace
}  // namespace oi::cpu
