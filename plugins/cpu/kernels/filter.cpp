// filter(a, b, c) = c != 0 ? a : b elementwise, with numpy broadcasting (ops.md). c has a's
// dtype or is bool; a float c is "non-zero" when it is not +-0.0 (NaN selects a). The chosen
// element's bits are copied unchanged.
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

oi_status* filter_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const ElemIO& v = elem_io(call->inputs[0].dtype);
  const ElemIO& c = elem_io(call->inputs[2].dtype);
  const std::byte* a = input_data(*call, 0);
  const std::byte* b = input_data(*call, 1);
  const std::byte* cond = input_data(*call, 2);
  std::byte* out = output_data(*call, 0);
  for_each_element<3>(*call, [&](uint64_t o, const std::array<uint64_t, 3>& in) {
    const bool pick_a = c.is_float ? c.ld_f64(cond, in[2]) != 0.0 : c.ld_i(cond, in[2]) != 0;
    v.st_bits(out, o, pick_a ? v.ld_bits(a, in[0]) : v.ld_bits(b, in[1]));
  });
  OI_ABI_CATCH(call->host)
}

void register_filter(KernelList& list) {
  add_each(list, "filter", {kFloats, kSigned, kUnsigned, {dt::BOOL}}, 3, &filter_kernel, false);
  for (DTypes g : {kFloats, kSigned, kUnsigned}) {
    for (uint32_t t : g) {
      list.add("filter", {t, t, dt::BOOL}, t, OI_KERNEL_MODE_NORMAL, &filter_kernel);
    }
  }
}

const KernelRegistration registration(register_filter);

}  // namespace
}  // namespace oi::cpu
