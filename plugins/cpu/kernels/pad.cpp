// pad (ONNX Pad): `pads` = [begin_0, ..., end_0, ...] (never negative), `mode` "constant"
// (`value`, default 0, converted to the dtype as fill does), "reflect" (mirror without repeating
// the edge; each pad smaller than its axis) or "edge" (repeat the edge). Every dtype but t1/t2,
// bit-exact; packed dtypes move element by element and stay packed.
#include <string>
#include <vector>

#include "../cpu_status.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

namespace oi::cpu {
namespace {

enum class PadMode { Constant, Reflect, Edge };

PadMode call_mode(const oi_kernel_call& call) {
  const oi_setting* s = abi::find_setting(call, "mode");
  if (s == nullptr) return PadMode::Constant;
  const std::string m = s->type == OI_SETTING_STRING && s->string_value ? s->string_value : "";
  if (m == "constant") return PadMode::Constant;
  if (m == "reflect") return PadMode::Reflect;
  if (m == "edge") return PadMode::Edge;
  fail(OI_STATUS_INVALID_ARGUMENT, "pad: 'mode' must be constant, reflect or edge");
}

// The input index that output index o of an axis of size d with `begin` padding reads; -1: the
// constant value.
int64_t source_index(int64_t o, int64_t d, int64_t begin, PadMode mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case PadMode::Constant:
      return -1;
    case PadMode::Edge:
      return i < 0 ? 0 : d - 1;
    case PadMode::Reflect:
      return i < 0 ? -i : 2 * (d - 1) - i;
  }
  return -1;
}

oi_status* pad_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& in_desc = call->inputs[0];
  const uint32_t rank = in_desc.rank;
  const oi_setting* pads = abi::find_setting(*call, "pads");
  if (pads == nullptr || pads->type != OI_SETTING_INT_LIST || pads->list_length != 2 * rank)
    fail(OI_STATUS_INVALID_ARGUMENT, "pad: 'pads' needs a begin and an end per axis");
  const PadMode mode = call_mode(*call);
  std::vector<int64_t> dim(rank), begin(rank), stride(rank, 1);
  std::vector<uint64_t> odim(rank);
  for (uint32_t k = 0; k < rank; ++k) {
    dim[k] = static_cast<int64_t>(in_desc.dims[k]);
    begin[k] = pads->list_values[k];
    const int64_t end = pads->list_values[k + rank];
    const bool padded = begin[k] > 0 || end > 0;
    if (begin[k] < 0 || end < 0 ||
        (mode == PadMode::Reflect && padded && (begin[k] >= dim[k] || end >= dim[k])) ||
        (mode == PadMode::Edge && padded && dim[k] == 0))
      fail(OI_STATUS_INVALID_ARGUMENT,
           "pad: the pads of axis " + std::to_string(k) + " do not suit its size and the mode");
    odim[k] = in_desc.dims[k] + static_cast<uint64_t>(begin[k] + end);
    if (odim[k] != call->outputs[0].dims[k])
      fail(OI_STATUS_INVALID_ARGUMENT, "pad: the output does not have the padded shape");
  }
  for (uint32_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * dim[k];
  const uint64_t total = abi::element_count(call->outputs[0]);
  if (total == 0) return nullptr;
  // The constant's raw bits, converted once as fill converts `value`.
  const ElemIO& io = elem_io(in_desc.dtype);
  std::byte cell[8] = {};
  if (io.is_float) {
    io.st_f64(cell, 0, abi::setting_float(*call, "value", 0.0));
  } else if (io.is_bool) {
    io.st_i(cell, 0, abi::setting_float(*call, "value", 0.0) != 0.0);
  } else {
    io.st_i(cell, 0, abi::setting_int(*call, "value", 0));
  }
  const uint64_t fill_bits = io.ld_bits(cell, 0);
  const uint64_t last = rank ? odim[rank - 1] : 1;
  const uint64_t rows = total / last;
  const ElementMover mover(in_desc.dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  auto copy = [&](uint64_t row_begin, uint64_t row_end) {
    for (uint64_t r = row_begin; r < row_end; ++r) {
      int64_t base = 0;
      bool constant = false;
      uint64_t rest = r;
      for (uint32_t k = rank > 0 ? rank - 1 : 0; k-- > 0;) {
        const auto o = static_cast<int64_t>(rest % odim[k]);
        rest /= odim[k];
        const int64_t i = source_index(o, dim[k], begin[k], mode);
        if (i < 0) constant = true;
        base += i * stride[k];
      }
      // The inside of the row is one run of the input row.
      const uint64_t lo = rank ? static_cast<uint64_t>(begin[rank - 1]) : 0,
                     hi = rank ? lo + static_cast<uint64_t>(dim[rank - 1]) : 1;
      const bool runs = !constant && !mover.packed();
      if (runs) mover.run(out, r * last + lo, in, static_cast<uint64_t>(base), hi - lo);
      for (uint64_t j = 0; j < last; ++j) {
        if (runs && j == lo) j = hi;
        if (j >= last) break;
        const int64_t i =
            rank ? source_index(static_cast<int64_t>(j), dim[rank - 1], begin[rank - 1], mode) : 0;
        if (constant || i < 0) {
          io.st_bits(out, r * last + j, fill_bits);
        } else {
          mover.run(out, r * last + j, in, static_cast<uint64_t>(base + i), 1);
        }
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

void register_pad(KernelList& list) {
  add_each(list, "pad", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, 1, &pad_kernel,
           false);
}

const KernelRegistration registration(register_pad);

}  // namespace
}  // namespace oi::cpu
