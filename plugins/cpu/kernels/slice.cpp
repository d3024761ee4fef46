// slice (ONNX Slice): the ranges of openinfer/slice_range.hpp (the SDK's, shared with the
// validator, the Vulkan backend and the emitters). Every dtype but t1/t2, bit-exact; packed dtypes
// move element by element and stay packed. Output row r (all axes but the last) starts at one input
// offset; the last axis is a strided run of the input.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "../cpu_status.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"
#include "openinfer/slice_range.hpp"

namespace oi::cpu {
namespace {

std::vector<int64_t> int_list(const oi_kernel_call& call, const char* name) {
  const oi_setting* s = abi::find_setting(call, name);
  if (s == nullptr) return {};
  if (s->type != OI_SETTING_INT_LIST)
    fail(OI_STATUS_INVALID_ARGUMENT, std::string("slice: '") + name + "' is not an int list");
  return std::vector<int64_t>(s->list_values, s->list_values + s->list_length);
}

struct SlicePlan {
  std::vector<int64_t> start, step;  // per input axis, in elements of that axis
  std::vector<uint64_t> count;       // output dims
};

SlicePlan plan_slice(const oi_kernel_call& call) {
  const oi_tensor_desc& in = call.inputs[0];
  const std::vector<int64_t> starts = int_list(call, "starts"), ends = int_list(call, "ends");
  const std::vector<int64_t> axes = int_list(call, "axes"), steps = int_list(call, "steps");
  const geometry::SliceSettings settings{starts,
                                         ends,
                                         axes,
                                         steps,
                                         abi::find_setting(call, "axes") != nullptr,
                                         abi::find_setting(call, "steps") != nullptr};
  const geometry::SliceRanges r =
      geometry::slice_ranges(std::span<const uint64_t>(in.dims, in.rank), settings);
  switch (r.error) {
    case geometry::SliceError::none:
      break;
    case geometry::SliceError::lengths:
    case geometry::SliceError::too_many:
      fail(OI_STATUS_INVALID_ARGUMENT,
           "slice: 'starts', 'ends', 'axes' and 'steps' must have one entry per sliced axis");
    case geometry::SliceError::axis_range:
    case geometry::SliceError::axis_repeated:
      fail(OI_STATUS_INVALID_ARGUMENT,
           "slice: axis " + std::to_string(r.axis) + " is out of range or repeated");
    case geometry::SliceError::zero_step:
      fail(OI_STATUS_INVALID_ARGUMENT, "slice: a step is 0");
  }
  SlicePlan p;
  for (const geometry::SliceAxis& a : r.axes) {
    p.start.push_back(a.start);
    p.step.push_back(a.step);
    p.count.push_back(a.count);
  }
  for (uint32_t k = 0; k < in.rank; ++k)
    if (p.count[k] != call.outputs[0].dims[k])
      fail(OI_STATUS_INVALID_ARGUMENT, "slice: the output does not have the sliced shape");
  return p;
}

oi_status* slice_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  SlicePlan p = plan_slice(*call);
  const oi_tensor_desc& in_desc = call->inputs[0];
  uint64_t total = 1;
  for (uint64_t c : p.count) total *= c;
  if (total == 0) return nullptr;
  // Trailing axes taken whole join the axis before them when it steps by 1: one longer run per
  // row ([1, 258, 4] sliced on axis 1 is one run of 129 x 4 elements).
  std::vector<uint64_t> dims(in_desc.dims, in_desc.dims + in_desc.rank);
  uint32_t rank = in_desc.rank;
  while (rank > 1 && p.start[rank - 1] == 0 && p.step[rank - 1] == 1 &&
         p.count[rank - 1] == dims[rank - 1] && p.step[rank - 2] == 1) {
    const uint64_t inner = dims[rank - 1];
    --rank;
    dims[rank - 1] *= inner;
    p.start[rank - 1] *= static_cast<int64_t>(inner);
    p.count[rank - 1] *= inner;
  }
  std::vector<int64_t> stride(rank, 1);  // input strides in elements
  for (uint32_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * static_cast<int64_t>(dims[k]);
  const uint64_t last = rank ? p.count[rank - 1] : 1;
  const int64_t last_step = rank ? p.step[rank - 1] * stride[rank - 1] : 1;
  const int64_t last_start = rank ? p.start[rank - 1] * stride[rank - 1] : 0;
  const uint64_t rows = total / last;
  const ElementMover mover(in_desc.dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  const uint64_t size = mover.packed() ? 0 : mover.bytes(1);
  auto copy = [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      int64_t base = last_start;
      uint64_t rest = r;
      for (uint32_t k = rank > 0 ? rank - 1 : 0; k-- > 0;) {
        const auto idx = static_cast<int64_t>(rest % p.count[k]);
        rest /= p.count[k];
        base += (p.start[k] + idx * p.step[k]) * stride[k];
      }
      if (last == 1 && size == 4) {  // one f32 or i32 per row (a column of a matrix)
        std::memcpy(out + r * 4, in + base * 4, 4);
      } else if (last_step == 1) {
        mover.run(out, r * last, in, static_cast<uint64_t>(base), last);
      } else {
        for (uint64_t j = 0; j < last; ++j)
          mover.run(out, r * last + j, in,
                    static_cast<uint64_t>(base + static_cast<int64_t>(j) * last_step), 1);
      }
    }
  };
  if (mover.packed()) {
    copy(0, rows);  // rows need not start on a byte: one thread writes
  } else {
    parallel_ranges(rows, last, copy);
  }
  OI_ABI_CATCH(call->host)
}

void register_slice(KernelList& list) {
  add_each(list, "slice", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, 1, &slice_kernel,
           false);
}

const KernelRegistration registration(register_slice);

}  // namespace
}  // namespace oi::cpu
