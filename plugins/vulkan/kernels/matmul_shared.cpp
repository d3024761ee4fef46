// The matmul kernels' shared pieces (matmul_shared.hpp): shapes, the batch table, and in-place
// staging through a scratch buffer copied by matmul_generic.comp's COPY mode.
#include "matmul_shared.hpp"

#include <algorithm>
#include <string>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

void check(oi_status* status) {
  if (status == nullptr) return;
  const std::string what = host()->status_message ? host()->status_message(status) : "";
  if (host()->status_free) host()->status_free(status);
  throw abi::StatusError(OI_STATUS_INTERNAL, "matmul: " + what);
}

[[noreturn]] void bad_shape(const std::string& why) {
  throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "matmul: " + why);
}

std::string dims_text(const oi_tensor_desc& t) {
  std::string text = "[";
  for (uint32_t d = 0; d < t.rank; ++d) text += (d ? ", " : "") + std::to_string(t.dims[d]);
  return text + "]";
}

uint64_t tensor_bytes(const oi_tensor_desc& t) {
  return (abi::element_count(t) * dtype_bits(t.dtype) + 7) / 8;
}

bool overlaps(const oi_tensor_desc& x, const oi_tensor_desc& y) {
  if (x.buffer != y.buffer) return false;
  const uint64_t x_end = x.byte_offset + tensor_bytes(x), y_end = y.byte_offset + tensor_bytes(y);
  return x.byte_offset < y_end && y.byte_offset < x_end;
}

// Copies `count` elements of `out`'s dtype from the start of `staged` to `out`.
void copy_staged(const oi_kernel_call& call, oi_buffer* staged, uint64_t count) {
  const oi_tensor_desc& out = call.outputs[0];
  const uint32_t bits = dtype_bits(out.dtype);
  const int code = wide_dtype_code(out.dtype);
  if (code < 0) unsupported("matmul: no shader code for the output dtype");
  const uint64_t first = out.byte_offset * 8 / bits;  // packed tensors start on a byte
  if (out.byte_offset * 8 % bits != 0) {
    declined("tensor byte offsets must be multiples of the element size");
  }
  fit32((first + count) * (bits == 64 ? 2 : 1), "an element index");
  Dispatch job;
  job.shader = "matmul_generic";
  job.spec = {static_cast<uint32_t>(code), static_cast<uint32_t>(code), 1, 16};
  job.params = {fit32(count), 0, 0, 0, 0, 0, fit32(first), 0};
  job.buffers = {staged, nullptr, out.buffer};
  const uint64_t per = bits == 64 ? 1 : 32 / bits;
  const uint64_t words = (first + count + per - 1) / per - first / per;
  job.groups[0] = static_cast<uint32_t>(std::min<uint64_t>((words + 255) / 256, 65535));
  run_dispatch(call.device, job);
}

}  // namespace

uint32_t element_start(const oi_tensor_desc& t) {
  const uint32_t bits = dtype_bits(t.dtype);
  if (t.byte_offset * 8 % bits != 0) {
    declined("tensor byte offsets must be multiples of the element size");
  }
  const uint64_t first = t.byte_offset * 8 / bits;
  fit32((first + abi::element_count(t)) * (bits == 64 ? 2 : 1), "an element index");
  return static_cast<uint32_t>(first);
}

MatmulShape matmul_shape(const oi_kernel_call& call) {
  if (call.num_inputs != 2 || call.num_outputs != 1) bad_shape("needs two inputs and one output");
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& out = call.outputs[0];
  if (a.rank < 2 || b.rank < 2)
    bad_shape("operands of rank >= 2, got " + dims_text(a) + " x " + dims_text(b));
  MatmulShape s;
  s.M = a.dims[a.rank - 2];
  s.K = a.dims[a.rank - 1];
  s.N = b.dims[b.rank - 1];
  // numpy: batch dims right-aligned, each 1 or the output's
  bool ok = b.dims[b.rank - 2] == s.K && out.rank == std::max(a.rank, b.rank) &&
            out.dims[out.rank - 2] == s.M && out.dims[out.rank - 1] == s.N;
  for (uint32_t d = 0; ok && d + 2 < out.rank; ++d) {
    const uint64_t want = out.dims[d];
    for (const oi_tensor_desc* t : {&a, &b}) {
      const uint32_t lead = out.rank - t->rank;  // dims t lacks count as 1
      const uint64_t have = d < lead ? 1 : t->dims[d - lead];
      ok = ok && (have == want || have == 1);
    }
    s.batches *= want;
  }
  if (!ok) {
    bad_shape(dims_text(a) + " x " + dims_text(b) + " cannot give " + dims_text(out));
  }
  return s;
}

std::vector<uint32_t> batch_table(const oi_kernel_call& call, uint64_t batches) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& out = call.outputs[0];
  const uint32_t rank = out.rank - 2;
  auto strides = [&](const oi_tensor_desc& t) {
    std::vector<uint64_t> s(rank, 0);
    uint64_t stride = 1;
    for (uint32_t k = 0; k + 2 < t.rank; ++k) {
      const uint32_t td = t.rank - 3 - k, od = rank - 1 - k;
      if (t.dims[td] != 1) s[od] = stride;
      stride *= t.dims[td];
    }
    return s;
  };
  const auto sa = strides(a), sb = strides(b);
  std::vector<uint32_t> table;
  table.reserve(2 * batches);
  for (uint64_t i = 0; i < batches; ++i) {
    uint64_t rest = i, ia = 0, ib = 0;
    for (uint32_t d = rank; d-- > 0;) {
      const uint64_t c = rest % out.dims[d];
      rest /= out.dims[d];
      ia += c * sa[d];
      ib += c * sb[d];
    }
    table.push_back(fit32(ia));
    table.push_back(fit32(ib));
  }
  return table;
}

void run_matmul(const oi_kernel_call& call, void (*compute)(const oi_kernel_call&)) {
  const oi_tensor_desc& out = call.outputs[0];
  const uint64_t count = matmul_shape(call).outputs();
  if (count == 0) return;
  if (!overlaps(out, call.inputs[0]) && !overlaps(out, call.inputs[1])) {
    compute(call);
    return;
  }
  oi_buffer* scratch = nullptr;
  check(buffer_alloc(call.device, (tensor_bytes(out) + 7) / 8 * 8, &scratch));
  // The scratch goes when the call ends, thrown or not; commands recorded later run after the
  // ones using it, so the buffer may be reused at once.
  struct Free {
    oi_device* d;
    oi_buffer* b;
    ~Free() { buffer_free(d, b); }
  } release{call.device, scratch};
  oi_tensor_desc staged = out;
  staged.buffer = scratch;
  staged.byte_offset = 0;
  staged.host_data = nullptr;
  oi_kernel_call redirected = call;
  redirected.outputs = &staged;
  compute(redirected);
  copy_staged(call, scratch, count);
}

}  // namespace oi::vulkan
