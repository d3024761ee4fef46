// Moving data (ops-nn.md, bit-exact) on shaders/move.comp for every dtype of 1, 2, 4 or 8 bytes
// and the packed integers (1, 2 or 4 bits, LSB-first): reshape (a copy), transpose, slice,
// concat, gather and pad. Each output element reads its
// source through per-source strides over the output's coordinates.
#include <algorithm>
#include <bit>
#include <limits>
#include <span>
#include <string>
#include <tuple>

#include "ew_ops.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_abi.hpp"
#include "openinfer/slice_range.hpp"
#include "word_copy.hpp"

namespace oi::vulkan {
namespace {

constexpr uint32_t kModeCopy = 0, kModeGather = 1, kModePad = 2;
constexpr uint32_t kMaxRank = 8, kSourcesPerDispatch = 4;
constexpr uint32_t kDims = 16, kSources = 24, kSourceWords = 11, kPads = 68;

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, why);
}

int32_t fit_i32(int64_t v) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    fail(OI_STATUS_DECLINED, "vulkan: an index or stride above 2^31");
  }
  return static_cast<int32_t>(v);
}

std::vector<int64_t> row_major_strides(const oi_tensor_desc& t) {
  std::vector<int64_t> s(t.rank, 1);
  for (uint32_t k = t.rank; k-- > 1;) s[k - 1] = s[k] * static_cast<int64_t>(t.dims[k]);
  return s;
}

// A packed tensor starts at bit 0 of its first byte: 8 / bits elements a byte.
uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t bits = dtype_bits(t.dtype);
  if (bits < 8)
    return static_cast<uint32_t>(fit_i32(static_cast<int64_t>(t.byte_offset * 8 / bits)));
  const uint32_t size = bits / 8;
  if (t.byte_offset % size != 0) {
    fail(OI_STATUS_DECLINED, "vulkan: tensor byte offsets must be multiples of the element size");
  }
  return static_cast<uint32_t>(fit_i32(static_cast<int64_t>(t.byte_offset / size)));
}

int64_t norm_axis(int64_t axis, uint32_t rank, const char* op) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= static_cast<int64_t>(std::max<uint32_t>(rank, 1))) {
    fail(OI_STATUS_INVALID_ARGUMENT,
         std::string(op) + ": axis " + std::to_string(axis) + " out of range");
  }
  return a;
}

std::vector<int64_t> int_list(const oi_kernel_call& c, const char* name) {
  const oi_setting* s = abi::find_setting(c, name);
  if (s == nullptr) return {};
  return {s->list_values, s->list_values + s->list_length};
}

// A dispatch over the output: dims, count and offset filled in; sources added by the caller.
struct MoveJob {
  Dispatch job;
  uint32_t count = 0;
};

// The dispatch's output part: its mode and element bits, count, dims and element offset.
MoveJob make_job(uint32_t mode, uint32_t bits, uint32_t count, const std::vector<uint64_t>& dims,
                 uint32_t out_index, oi_buffer* out) {
  if (dims.size() > kMaxRank) fail(OI_STATUS_DECLINED, "vulkan: tensors of rank above 8");
  fit_i32(int64_t{out_index} + count + 4);
  MoveJob m;
  m.count = count;
  Dispatch& j = m.job;
  j.shader = "move";
  j.spec = {mode, bits};
  j.params.assign(kPads + 2 * kMaxRank, 0);
  j.params[0] = count;
  j.params[1] = static_cast<uint32_t>(dims.size());
  j.params[2] = out_index;
  j.params[3] = 1;
  for (size_t d = 0; d < dims.size(); ++d) j.params[kDims + d] = static_cast<uint32_t>(dims[d]);
  j.buffers[5] = out;
  j.output = 5;
  return m;
}

MoveJob start_job(const oi_kernel_call& c, uint32_t mode, const std::vector<uint64_t>& dims) {
  const oi_tensor_desc& out = c.outputs[0];
  const auto count = static_cast<uint32_t>(fit_i32(static_cast<int64_t>(abi::element_count(out))));
  return make_job(mode, dtype_bits(out.dtype), count, dims, element_index(out), out.buffer);
}

// Source `slot`: its element index, axis range and strides (in elements, per output dim).
void set_source_at(Dispatch& j, uint32_t slot, oi_buffer* buffer, int64_t index, uint32_t lo,
                   uint32_t hi, const std::vector<int64_t>& strides) {
  const uint32_t b = kSources + kSourceWords * slot;
  j.params[b] = static_cast<uint32_t>(fit_i32(index));
  j.params[b + 1] = lo;
  j.params[b + 2] = hi;
  for (size_t d = 0; d < strides.size(); ++d) {
    j.params[b + 3 + d] = static_cast<uint32_t>(fit_i32(strides[d]));
  }
  j.buffers[slot] = buffer;
}

void set_source(Dispatch& j, uint32_t slot, const oi_tensor_desc& t, int64_t offset, uint32_t lo,
                uint32_t hi, const std::vector<int64_t>& strides) {
  set_source_at(j, slot, t.buffer, element_index(t) + offset, lo, hi, strides);
}

void run(oi_device* device, MoveJob& m) {
  if (m.count == 0) return;
  const uint32_t bits = m.job.spec[1];
  const uint32_t per = bits >= 32 ? 1 : 32 / bits;
  const uint32_t items = bits == 64 ? m.count : m.count / per + 2;
  m.job.groups[0] = std::min<uint32_t>((items + 255) / 256, 65535);
  run_dispatch(device, m.job);
}

std::vector<uint64_t> dims_of(const oi_tensor_desc& t) {
  return {t.dims, t.dims + t.rank};
}

oi_status* reshape_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const uint64_t n = abi::element_count(call->outputs[0]);
  MoveJob m = start_job(*call, kModeCopy, {n});
  set_source(m.job, 0, call->inputs[0], 0, 0, std::numeric_limits<uint32_t>::max(), {1});
  run(call->device, m);
  OI_ABI_CATCH(call->host)
}

}  // namespace

void run_word_copy(oi_device* device, oi_buffer* src, uint32_t from, oi_buffer* dst, uint32_t to,
                   uint32_t words) {
  MoveJob m = make_job(kModeCopy, 32, words, {words}, to, dst);
  set_source_at(m.job, 0, src, from, 0, std::numeric_limits<uint32_t>::max(), {1});
  run(device, m);
}

namespace {

oi_status* transpose_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& in = call->inputs[0];
  std::vector<int64_t> perm = int_list(*call, "perm");
  if (perm.empty()) {
    for (uint32_t d = in.rank; d-- > 0;) perm.push_back(d);
  }
  if (perm.size() != in.rank)
    fail(OI_STATUS_INVALID_ARGUMENT, "transpose: 'perm' needs one entry per axis");
  const auto in_strides = row_major_strides(in);
  std::vector<int64_t> strides;
  for (int64_t p : perm) strides.push_back(in_strides[norm_axis(p, in.rank, "transpose")]);
  MoveJob m = start_job(*call, kModeCopy, dims_of(call->outputs[0]));
  m.job.params[4] = 0;
  set_source(m.job, 0, in, 0, 0, std::numeric_limits<uint32_t>::max(), strides);
  run(call->device, m);
  OI_ABI_CATCH(call->host)
}

oi_status* slice_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& in = call->inputs[0];
  const auto starts = int_list(*call, "starts"), ends = int_list(*call, "ends");
  const auto axes = int_list(*call, "axes"), steps = int_list(*call, "steps");
  const geometry::SliceRanges r = geometry::slice_ranges(
      std::span<const uint64_t>(in.dims, in.rank),
      {starts, ends, axes, steps, abi::find_setting(*call, "axes") != nullptr,
       abi::find_setting(*call, "steps") != nullptr});
  if (r.error == geometry::SliceError::lengths || r.error == geometry::SliceError::too_many) {
    fail(OI_STATUS_INVALID_ARGUMENT,
         "slice: 'starts', 'ends', 'axes' and 'steps' must have one entry per sliced axis");
  }
  if (r.error == geometry::SliceError::zero_step)
    fail(OI_STATUS_INVALID_ARGUMENT, "slice: a step of 0");
  if (!r.ok()) {
    fail(OI_STATUS_INVALID_ARGUMENT, "slice: axis " + std::to_string(r.axis) + " out of range");
  }
  auto strides = row_major_strides(in);
  int64_t offset = 0;
  for (uint32_t a = 0; a < in.rank; ++a) {
    offset += r.axes[a].start * strides[a];
    strides[a] *= r.axes[a].step;
  }
  MoveJob m = start_job(*call, kModeCopy, dims_of(call->outputs[0]));
  if (m.count == 0) return nullptr;
  set_source(m.job, 0, in, offset, 0, std::numeric_limits<uint32_t>::max(), strides);
  run(call->device, m);
  OI_ABI_CATCH(call->host)
}

// Up to four inputs a dispatch; each dispatch writes only the elements of its inputs.
oi_status* concat_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& out = call->outputs[0];
  const int64_t axis = norm_axis(abi::setting_int(*call, "axis", 0), out.rank, "concat");
  std::vector<uint32_t> lo(call->num_inputs + 1, 0);
  for (uint32_t i = 0; i < call->num_inputs; ++i) {
    lo[i + 1] = lo[i] + static_cast<uint32_t>(call->inputs[i].dims[axis]);
  }
  for (uint32_t first = 0; first < call->num_inputs; first += kSourcesPerDispatch) {
    MoveJob m = start_job(*call, kModeCopy, dims_of(out));
    m.job.params[4] = static_cast<uint32_t>(axis);
    uint32_t slot = 0;
    for (uint32_t i = first; i < std::min(call->num_inputs, first + kSourcesPerDispatch); ++i) {
      const oi_tensor_desc& t = call->inputs[i];
      auto strides = row_major_strides(t);
      // The axis coordinate counts from the output's start: shift the offset back by lo.
      set_source(m.job, slot++, t, -int64_t{lo[i]} * strides[axis], lo[i], lo[i + 1], strides);
    }
    m.job.params[3] = slot;
    run(call->device, m);
  }
  OI_ABI_CATCH(call->host)
}

// Indices are read back and checked on the host before anything is written: one out of range
// is an error naming the op, the index and the bound.
oi_status* gather_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& data = call->inputs[0];
  const oi_tensor_desc& idx = call->inputs[1];
  const int64_t axis = norm_axis(abi::setting_int(*call, "axis", 0), data.rank, "gather");
  const uint64_t q = abi::element_count(idx);
  const int64_t bound = static_cast<int64_t>(data.dims[axis]);
  const bool wide = idx.dtype == OI_DTYPE_I64;
  if (q > 0) {
    std::vector<int64_t> values(q);
    std::vector<int32_t> narrow(wide ? 0 : q);
    void* dst = wide ? static_cast<void*>(values.data()) : narrow.data();
    oi_status* st =
        buffer_download(call->device, idx.buffer, idx.byte_offset, dst, q * (wide ? 8 : 4));
    if (st != nullptr) return st;
    for (uint64_t i = 0; i < q; ++i) {
      const int64_t v = wide ? values[i] : narrow[i];
      if (v < -bound || v >= bound) {
        fail(OI_STATUS_INVALID_ARGUMENT, "gather: index " + std::to_string(v) +
                                             " is out of range for axis " + std::to_string(axis) +
                                             " of size " + std::to_string(bound));
      }
    }
  }
  uint64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data.dims[d];
  for (uint32_t d = static_cast<uint32_t>(axis) + 1; d < data.rank; ++d) inner *= data.dims[d];
  MoveJob m = start_job(*call, kModeGather, {outer, q, inner});
  m.job.params[4] = static_cast<uint32_t>(bound);
  if (idx.byte_offset % 4 != 0)
    fail(OI_STATUS_DECLINED, "vulkan: index byte offsets must be multiples of 4");
  m.job.params[8] = static_cast<uint32_t>(fit_i32(static_cast<int64_t>(idx.byte_offset / 4)));
  m.job.params[9] = wide ? 64 : 32;
  set_source(m.job, 0, data, 0, 0, 0, {});
  m.job.buffers[1] = idx.buffer;
  run(call->device, m);
  OI_ABI_CATCH(call->host)
}

// The constant's raw bits, converted as fill converts `value`.
std::pair<uint32_t, uint32_t> pad_value_bits(const oi_kernel_call& c, uint32_t dtype) {
  const double v = abi::setting_float(c, "value", 0.0);
  uint64_t bits = 0;
  switch (dtype) {
    case OI_DTYPE_F32:
      bits = std::bit_cast<uint32_t>(f64_to_f32(v));
      break;
    case OI_DTYPE_F64:
      bits = std::bit_cast<uint64_t>(v);
      break;
    case OI_DTYPE_F16:
      bits = f64_to_f16_bits(v);
      break;
    case OI_DTYPE_BF16:
      bits = f64_to_bf16_bits(v);
      break;
    case OI_DTYPE_F8:
      bits = f64_to_f8_bits(v);
      break;
    case OI_DTYPE_BOOL:
      bits = v != 0.0 ? 1 : 0;
      break;
    default:
      bits = static_cast<uint64_t>(abi::setting_int(c, "value", 0));
  }
  const uint32_t width = dtype_bits(dtype);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  return {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
}

oi_status* pad_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& in = call->inputs[0];
  const auto pads = int_list(*call, "pads");
  if (pads.size() != 2 * size_t{in.rank}) {
    fail(OI_STATUS_INVALID_ARGUMENT, "pad: 'pads' needs a begin and an end per axis");
  }
  const std::string_view mode = abi::setting_string(*call, "mode", "constant");
  const uint32_t code = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : 3;
  if (code == 3) fail(OI_STATUS_INVALID_ARGUMENT, "pad: 'mode' must be constant, reflect or edge");
  MoveJob m = start_job(*call, kModePad, dims_of(call->outputs[0]));
  if (m.count == 0) return nullptr;
  for (uint32_t d = 0; d < in.rank; ++d) {
    const int64_t n = static_cast<int64_t>(in.dims[d]), b = pads[d], e = pads[d + in.rank];
    if (b < 0 || e < 0 || (code == 1 && (b >= n || e >= n)) || (code == 2 && n == 0 && b + e > 0)) {
      fail(OI_STATUS_INVALID_ARGUMENT,
           "pad: the pads of axis " + std::to_string(d) + " do not suit its size and the mode");
    }
    m.job.params[kPads + 2 * d] = static_cast<uint32_t>(n);
    m.job.params[kPads + 2 * d + 1] = static_cast<uint32_t>(fit_i32(b));
  }
  m.job.params[5] = code;
  std::tie(m.job.params[6], m.job.params[7]) = pad_value_bits(*call, in.dtype);
  set_source(m.job, 0, in, 0, 0, 0, row_major_strides(in));
  run(call->device, m);
  OI_ABI_CATCH(call->host)
}

// Every dtype of whole bytes and the packed integers (t1/t2 stay on the CPU).
const std::vector<uint32_t> kMoveDtypes = {
    OI_DTYPE_F32, OI_DTYPE_I32, OI_DTYPE_U32,    OI_DTYPE_F16,  OI_DTYPE_BF16, OI_DTYPE_I16,
    OI_DTYPE_U16, OI_DTYPE_I8,  OI_DTYPE_U8,     OI_DTYPE_BOOL, OI_DTYPE_F64,  OI_DTYPE_I64,
    OI_DTYPE_U64, OI_DTYPE_F8,  OI_DTYPE_BITSET, OI_DTYPE_I1,   OI_DTYPE_I2,   OI_DTYPE_I4,
    OI_DTYPE_U1,  OI_DTYPE_U2,  OI_DTYPE_U4};

void register_move(std::vector<VulkanKernel>& list) {
  for (uint32_t t : kMoveDtypes) {
    auto add = [&](const char* op, std::vector<uint32_t> ins, oi_kernel_fn fn) {
      list.push_back({op, std::move(ins), t, OI_KERNEL_MODE_NORMAL, Needs::Nothing, fn});
    };
    add("reshape", {t}, &reshape_kernel);
    add("transpose", {t}, &transpose_kernel);
    add("slice", {t}, &slice_kernel);
    add("pad", {t}, &pad_kernel);
    add("gather", {t, OI_DTYPE_I32}, &gather_kernel);
    add("gather", {t, OI_DTYPE_I64}, &gather_kernel);
    for (uint32_t n = 1; n <= 16; ++n) add("concat", std::vector<uint32_t>(n, t), &concat_kernel);
  }
}

const KernelRegistration registration(register_move);

}  // namespace
}  // namespace oi::vulkan
