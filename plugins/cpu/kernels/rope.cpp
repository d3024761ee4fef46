// rope(x, pos) (ops-nn.md): rotary position embedding of x [..., T, D]. Token t has position
// p = pos + t; pair i rotates by p·theta^(-2i/D): (x[i], x[i + D/2]) or, with `interleaved`,
// (x[2i], x[2i + 1]). Angles and the rotation run in f64 and the result is rounded once to
// x's dtype: an f32 angle would be off by ~1e-3 rad at positions beyond a few thousand. The
// cos/sin table of the call's T x D/2 angles is shared by every leading row (every head).
// In place is safe: each pair is read before either element is written.
#include <cmath>
#include <string>
#include <vector>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

oi_status* rope_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& x = call->inputs[0];
  const uint64_t t_len = x.dims[x.rank - 2], d = x.dims[x.rank - 1];
  if (d % 2 != 0)
    fail(OI_STATUS_INVALID_ARGUMENT, "rope: the last dim must be even, got " + std::to_string(d));
  const uint64_t half = d / 2;
  const uint64_t rows = t_len == 0 ? 0 : abi::element_count(x) / (t_len * std::max<uint64_t>(d, 1));
  const double theta = abi::setting_float(*call, "theta", 10000.0);
  const bool interleaved = abi::setting_bool(*call, "interleaved", false);
  const std::byte* pos_data = input_data(*call, 1);
  const int64_t pos = call->inputs[1].dtype == OI_DTYPE_I32 ? load<int32_t>(pos_data, 0)
                                                            : load<int64_t>(pos_data, 0);
  std::vector<double> cos_t(t_len * half), sin_t(t_len * half), freq(half);
  for (uint64_t i = 0; i < half; ++i)
    freq[i] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  for (uint64_t t = 0; t < t_len; ++t) {
    const double p = static_cast<double>(pos) + static_cast<double>(t);
    for (uint64_t i = 0; i < half; ++i) {
      const double angle = p * freq[i];
      cos_t[t * half + i] = std::cos(angle);
      sin_t[t * half + i] = std::sin(angle);
    }
  }
  const ElemIO& in_io = elem_io(x.dtype);
  const ElemIO& out_io = elem_io(call->outputs[0].dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  const uint64_t lo_step = interleaved ? 2 : 1, hi_offset = interleaved ? 1 : half;
  parallel_ranges(rows * t_len, d * 8, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      const uint64_t t = r % t_len, base = r * d;
      const double* c = cos_t.data() + t * half;
      const double* s = sin_t.data() + t * half;
      for (uint64_t i = 0; i < half; ++i) {
        const uint64_t ia = base + i * lo_step, ib = ia + hi_offset;
        const double a = in_io.ld_f64(in, ia), b = in_io.ld_f64(in, ib);
        out_io.st_f64(out, ia, a * c[i] - b * s[i]);
        out_io.st_f64(out, ib, a * s[i] + b * c[i]);
      }
    }
  });
  OI_ABI_CATCH(call->host)
}

void register_rope(KernelList& list) {
  for (uint32_t t : kFloats) {
    for (uint32_t p : {dt::I32, dt::I64}) {
      list.add("rope", {t, p}, t, OI_KERNEL_MODE_NORMAL, &rope_kernel);
      list.add("rope", {t, p}, t, OI_KERNEL_MODE_INPLACE, &rope_kernel);
    }
  }
}

const KernelRegistration registration(register_rope);

}  // namespace
}  // namespace oi::cpu
