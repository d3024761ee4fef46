// slice (ONNX Slice): per axis of `axes` (default 0, 1, ...) a start, end and step (default 1,
// never 0); negative starts/ends count from the end and are then clamped to [0, dim] (step > 0)
// or [-1, dim - 1] (step < 0). Every dtype but t1/t2, bit-exact; packed dtypes move element by
// element and stay packed. Output row r (all axes but the last) starts at one input offset; the
// last axis is a strided run of the input.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "../cpu_status.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

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
  const bool has_axes = abi::find_setting(call, "axes") != nullptr;
  const bool has_steps = abi::find_setting(call, "steps") != nullptr;
  const size_t n = starts.size();
  const auto rank = static_cast<int64_t>(in.rank);
  if (ends.size() != n || (has_axes && axes.size() != n) || (has_steps && steps.size() != n) ||
      (!has_axes && n > in.rank))
    fail(OI_STATUS_INVALID_ARGUMENT,
         "slice: 'starts', 'ends', 'axes' and 'steps' must have one entry per sliced axis");
  SlicePlan p;
  p.start.assign(in.rank, 0);
  p.step.assign(in.rank, 1);
  p.count.assign(in.dims, in.dims + in.rank);
  std::set<int64_t> seen;
  for (size_t i = 0; i < n; ++i) {
    int64_t a = has_axes ? axes[i] : static_cast<int64_t>(i);
    if (a < -rank || a >= rank || !seen.insert(a < 0 ? a + rank : a).second)
      fail(OI_STATUS_INVALID_ARGUMENT,
           "slice: axis " + std::to_string(a) + " is out of range or repeated");
    a = a < 0 ? a + rank : a;
    const int64_t step = has_steps ? steps[i] : 1;
    if (step == 0) fail(OI_STATUS_INVALID_ARGUMENT, "slice: a step is 0");
    const auto dim = static_cast<int64_t>(in.dims[a]);
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b = b < -dim ? -1 : b + dim;
    if (e < 0) e = e < -dim ? -1 : e + dim;
    uint64_t count = 0;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      if (e > b) count = static_cast<uint64_t>((e - b - 1) / step + 1);
    } else if (dim > 0) {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      if (b > e) count = static_cast<uint64_t>(b - e - 1) / (0 - static_cast<uint64_t>(step)) + 1;
    }
    p.start[a] = b;
    p.step[a] = step;
    p.count[a] = count;
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
