// transpose: output axis i is input axis perm[i] (absent: the axes reversed). Every dtype but
// t1/t2, bit-exact. The innermost output axis is walked as a strided run of the input; chunks
// of output elements start on multiples of kPackedAlign so threads never share a packed byte.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../cpu_status.hpp"
#include "../generic_elementwise.hpp"
#include "../move_data.hpp"

namespace oi::cpu {
namespace {

constexpr uint32_t kMaxRank = 16;

std::vector<uint32_t> call_perm(const oi_kernel_call& call) {
  const uint32_t rank = call.inputs[0].rank;
  std::vector<uint32_t> perm(rank);
  const oi_setting* s = abi::find_setting(call, "perm");
  if (s == nullptr) {
    for (uint32_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    return perm;
  }
  std::vector<bool> seen(rank, false);
  bool ok = s->type == OI_SETTING_INT_LIST && s->list_length == rank;
  for (uint32_t i = 0; ok && i < rank; ++i) {
    int64_t p = s->list_values[i];
    p = p < 0 ? p + rank : p;
    ok = p >= 0 && p < static_cast<int64_t>(rank) && !seen[static_cast<size_t>(p)];
    if (ok) {
      seen[static_cast<size_t>(p)] = true;
      perm[i] = static_cast<uint32_t>(p);
    }
  }
  if (!ok)
    fail(OI_STATUS_INVALID_ARGUMENT,
         "transpose: 'perm' is not a permutation of the " + std::to_string(rank) + " axes");
  return perm;
}

oi_status* transpose_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& x = call->inputs[0];
  const std::vector<uint32_t> perm = call_perm(*call);
  const uint32_t rank = x.rank;
  const uint64_t n = abi::element_count(x);
  if (n == 0) return nullptr;
  std::vector<uint64_t> in_stride(rank, 1), dims(rank), stride(rank);
  for (uint32_t k = rank; k-- > 1;) in_stride[k - 1] = in_stride[k] * x.dims[k];
  for (uint32_t k = 0; k < rank; ++k) {
    dims[k] = x.dims[perm[k]];
    stride[k] = in_stride[perm[k]];
  }
  const ElementMover mover(x.dtype);
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  const uint64_t blocks = (n + kPackedAlign - 1) / kPackedAlign;
  // Whole-byte elements of 1, 2, 4 or 8 bytes: copied as integers of that size (the same bits),
  // without a memcpy call per element.
  auto typed = [&](auto unit) {
    using U = decltype(unit);
    parallel_ranges(blocks, kPackedAlign, [&](uint64_t b0, uint64_t b1) {
      const uint64_t begin = b0 * kPackedAlign, end = std::min(n, b1 * kPackedAlign);
      uint64_t idx[kMaxRank] = {};
      uint64_t src = 0;
      for (uint64_t rest = begin, k = rank; k-- > 0;) {
        idx[k] = rest % dims[k];
        rest /= dims[k];
        src += idx[k] * stride[k];
      }
      const uint64_t last = rank ? dims[rank - 1] : 1, step = rank ? stride[rank - 1] : 1;
      for (uint64_t o = begin; o < end;) {
        // the rest of this run of the innermost output axis
        const uint64_t j0 = rank ? idx[rank - 1] : 0, count = std::min(last - j0, end - o);
        for (uint64_t j = 0; j < count; ++j) {
          U v;
          std::memcpy(&v, in + (src + j * step) * sizeof(U), sizeof(U));
          std::memcpy(out + (o + j) * sizeof(U), &v, sizeof(U));
        }
        o += count;
        if (rank == 0) break;
        src += count * step;
        idx[rank - 1] = j0 + count;
        for (uint32_t k = rank; k-- > 0;) {  // carry into the outer axes
          if (idx[k] < dims[k]) break;
          src -= idx[k] * stride[k];
          idx[k] = 0;
          if (k == 0) break;
          src += stride[k - 1];
          ++idx[k - 1];
        }
      }
    });
  };
  if (!mover.packed() && rank <= kMaxRank) {
    switch (mover.bytes(1)) {
      case 1:
        typed(uint8_t{});
        return nullptr;
      case 2:
        typed(uint16_t{});
        return nullptr;
      case 4:
        typed(uint32_t{});
        return nullptr;
      case 8:
        typed(uint64_t{});
        return nullptr;
      default:
        break;
    }
  }
  parallel_ranges(blocks, kPackedAlign, [&](uint64_t b0, uint64_t b1) {
    const uint64_t begin = b0 * kPackedAlign, end = std::min(n, b1 * kPackedAlign);
    std::vector<uint64_t> idx(rank);
    uint64_t src = 0;
    for (uint64_t rest = begin, k = rank; k-- > 0;) {
      idx[k] = rest % dims[k];
      rest /= dims[k];
      src += idx[k] * stride[k];
    }
    for (uint64_t o = begin; o < end; ++o) {
      mover.run(out, o, in, src, 1);
      for (uint32_t k = rank; k-- > 0;) {  // next output index, carrying
        src += stride[k];
        if (++idx[k] < dims[k]) break;
        src -= idx[k] * stride[k];
        idx[k] = 0;
      }
    }
  });
  OI_ABI_CATCH(call->host)
}

void register_transpose(KernelList& list) {
  add_each(list, "transpose", {kFloats, kSigned, kUnsigned, {dt::BOOL, dt::BITSET}}, 1,
           &transpose_kernel, false);
}

const KernelRegistration registration(register_transpose);

}  // namespace
}  // namespace oi::cpu
