#include "reduce.hpp"

#include <tbb/task_arena.h>
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_status.hpp"
#include "dtype_io.hpp"
#include "element_types.hpp"
#include "generic_elementwise.hpp"
#include "minmax.hpp"
#include "parallel.hpp"

namespace oi::cpu {
namespace {

// Where each input element lands in the output: per input axis, the output stride (0 for a
// reduced axis). `along` is the reduced axis of argmax/argmin.
struct ReducePlan {
  std::vector<uint64_t> dims, out_stride;
  uint64_t out_numel = 1, count = 1;
  int along = -1;

  ReducePlan(const oi_tensor_desc& in, const std::vector<bool>& reduced)
      : dims(in.dims, in.dims + in.rank), out_stride(in.rank, 0) {
    for (size_t k = dims.size(); k-- > 0;) {
      if (reduced[k]) {
        count *= dims[k];
      } else {
        out_stride[k] = out_numel;
        out_numel *= dims[k];
      }
    }
  }

  // fn(input index, output index, coordinate along `along`) in row-major input order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    if (n == 0) return;
    std::vector<uint64_t> coord(dims.size(), 0);
    uint64_t o = 0;
    for (uint64_t i = 0; i < n; ++i) {
      fn(i, o, along >= 0 ? coord[along] : 0);
      for (size_t k = dims.size(); k-- > 0;) {  // odometer step
        o += out_stride[k];
        if (++coord[k] < dims[k]) break;
        o -= out_stride[k] * dims[k];
        coord[k] = 0;
      }
    }
  }
};

int normalize_axis(int64_t axis, uint32_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= static_cast<int64_t>(rank)) {
    fail(OI_STATUS_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " is out of range");
  }
  return static_cast<int>(a);
}

// axes absent: every axis; [] none (the output equals the input).
std::vector<bool> reduced_axes(const oi_kernel_call& call, uint32_t rank) {
  const oi_setting* s = abi::find_setting(call, "axes");
  if (s == nullptr) return std::vector<bool>(rank, true);
  std::vector<bool> reduced(rank, false);
  for (uint64_t i = 0; i < s->list_length; ++i) {
    reduced[normalize_axis(s->list_values[i], rank)] = true;
  }
  return reduced;
}

// ops.md: a float sum starts at -0.0, the identity of IEEE addition (-0 + x is x for every x,
// +0 included), so a sum of only -0.0 terms is -0.0; an empty sum is +0.0.
template <class F>
F sum_start(uint64_t count) {
  return count == 0 ? F{0} : -F{0};
}

template <class F>
void fold_floats(const oi_kernel_call& call, const ReducePlan& plan, ReduceKind kind,
                 F (*load)(const ElemIO&, const std::byte*, uint64_t)) {
  const ElemIO& in_io = elem_io(call.inputs[0].dtype);
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  const std::byte* in = input_data(call, 0);
  std::vector<F> acc(plan.out_numel, kind == ReduceKind::Prod ? F{1} : sum_start<F>(plan.count));
  std::vector<char> seen(plan.out_numel, 0);
  plan.for_each([&](uint64_t i, uint64_t o, uint64_t) {
    const F v = load(in_io, in, i);
    switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        acc[o] = acc[o] + v;
        break;
      case ReduceKind::Prod:
        acc[o] = acc[o] * v;
        break;
      case ReduceKind::Max:
        acc[o] = seen[o] ? float_max(acc[o], v) : v;
        break;
      default:
        acc[o] = seen[o] ? float_min(acc[o], v) : v;
        break;
    }
    seen[o] = 1;
  });
  std::byte* out = output_data(call, 0);
  for (uint64_t o = 0; o < plan.out_numel; ++o) {
    F r = acc[o];
    if (kind == ReduceKind::Mean) r = r / static_cast<F>(plan.count);  // 0 / 0: NaN when empty
    store_result(out_io, out, o, r);
  }
}

void fold_ints(const oi_kernel_call& call, const ReducePlan& plan, ReduceKind kind) {
  const ElemIO& in_io = elem_io(call.inputs[0].dtype);
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);  // the acc= dtype when given
  const bool accumulate = call.kernel->mode == OI_KERNEL_MODE_ACCUMULATE;
  const std::byte* in = input_data(call, 0);
  std::byte* out = output_data(call, 0);
  if (kind == ReduceKind::Mean) {
    // Sum exactly (wide enough for any tensor), or wrapped at the acc= width; truncate.
    std::vector<__int128> sum(plan.out_numel, 0);
    plan.for_each([&](uint64_t i, uint64_t o, uint64_t) {
      const int64_t v = in_io.ld_i(in, i);
      sum[o] += in_io.is_signed ? __int128{v} : __int128{static_cast<uint64_t>(v)};
    });
    for (uint64_t o = 0; o < plan.out_numel; ++o) {
      __int128 s = sum[o];
      if (accumulate) {
        const int64_t w = wrap_to(static_cast<int64_t>(s), out_io);
        s = out_io.is_signed ? __int128{w} : __int128{static_cast<uint64_t>(w)};
      }
      out_io.st_i(out, o, plan.count == 0 ? 0 : static_cast<int64_t>(s / plan.count));
    }
    return;
  }
  std::vector<int64_t> acc(plan.out_numel, kind == ReduceKind::Prod ? 1 : 0);
  std::vector<char> seen(plan.out_numel, 0);
  plan.for_each([&](uint64_t i, uint64_t o, uint64_t) {
    const int64_t v = in_io.ld_i(in, i);
    switch (kind) {
      case ReduceKind::Sum:
        acc[o] = wadd(acc[o], v);
        break;
      case ReduceKind::Prod:
        acc[o] = wmul(acc[o], v);
        break;
      case ReduceKind::Max:
        acc[o] = seen[o] ? int_max(acc[o], v, in_io) : v;
        break;
      default:
        acc[o] = seen[o] ? int_min(acc[o], v, in_io) : v;
        break;
    }
    seen[o] = 1;
  });
  for (uint64_t o = 0; o < plan.out_numel; ++o) out_io.st_i(out, o, acc[o]);
}

// argmax/argmin: the first (or, select_first=false, last) index of the extreme value; a NaN
// wins at its first index.
void arg_extreme(const oi_kernel_call& call, const ReducePlan& plan, bool is_max) {
  const ElemIO& io = elem_io(call.inputs[0].dtype);
  const bool first = abi::setting_bool(call, "select_first", true);
  const std::byte* in = input_data(call, 0);
  std::vector<double> best_f(io.is_float ? plan.out_numel : 0);
  std::vector<int64_t> best_i(io.is_float ? 0 : plan.out_numel);
  std::vector<int64_t> index(plan.out_numel, 0);
  std::vector<char> state(plan.out_numel, 0);  // 0 empty, 1 has a value, 2 found a NaN
  plan.for_each([&](uint64_t i, uint64_t o, uint64_t along) {
    if (state[o] == 2) return;
    bool take, tie;
    if (io.is_float) {
      const double v = io.ld_f64(in, i);  // exact for every float dtype
      if (std::isnan(v)) {
        state[o] = 2;
        index[o] = static_cast<int64_t>(along);
        return;
      }
      tie = state[o] && v == best_f[o];
      take = !state[o] || (is_max ? v > best_f[o] : v < best_f[o]);
      if (take || (tie && !first)) best_f[o] = v;
    } else {
      const int64_t v = io.ld_i(in, i);
      tie = state[o] && v == best_i[o];
      take = !state[o] || (is_max ? int_less(best_i[o], v, io) : int_less(v, best_i[o], io));
      if (take || (tie && !first)) best_i[o] = v;
    }
    if (take || (tie && !first)) {
      index[o] = static_cast<int64_t>(along);
      state[o] = 1;
    }
  });
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  std::byte* out = output_data(call, 0);
  for (uint64_t o = 0; o < plan.out_numel; ++o) out_io.st_i(out, o, index[o]);
}

// acc[j] = src[j] + src[stride + j] + ... over `rows` rows, added in row order for each j.
// Four rows per pass keep the running sum in a register for four additions.
template <class F>
void sum_rows_into(const F* src, uint64_t stride, uint64_t rows, uint64_t n, F* acc) {
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  std::copy(src, src + n, acc);
  uint64_t r = 1;
  for (; r + 4 <= rows; r += 4) {
    const F* r0 = src + r * stride;
    const F* r1 = r0 + stride;
    const F* r2 = r1 + stride;
    const F* r3 = r2 + stride;
    uint64_t j = 0;
    for (; j + lanes <= n; j += lanes) {
      batch v = batch::load_unaligned(acc + j);
      v = v + batch::load_unaligned(r0 + j);
      v = v + batch::load_unaligned(r1 + j);
      v = v + batch::load_unaligned(r2 + j);
      v = v + batch::load_unaligned(r3 + j);
      v.store_unaligned(acc + j);
    }
    for (; j < n; ++j) acc[j] = ((acc[j] + r0[j]) + r1[j] + r2[j]) + r3[j];
  }
  for (; r < rows; ++r) {
    const F* row = src + r * stride;
    uint64_t j = 0;
    for (; j + lanes <= n; j += lanes) {
      (batch::load_unaligned(acc + j) + batch::load_unaligned(row + j)).store_unaligned(acc + j);
    }
    for (; j < n; ++j) acc[j] = acc[j] + row[j];
  }
}

// Sum or mean of f32 (f64) into the same dtype when the reduced axes are one contiguous block
// (outer x len x inner): vectorised with xsimd and spread over oneTBB's workers. With inner == 1
// each output is a contiguous row, summed in SIMD lanes (an order ops.md's sum tolerance allows);
// otherwise whole rows of `inner` outputs are added in input order, as fold_floats does, or in
// fixed blocks of rows for long reductions. Returns
// false for every other case, which the generic fold handles.
template <class F>
bool fast_float_sum(const oi_kernel_call& call, const std::vector<bool>& reduced,
                    const ReducePlan& plan, ReduceKind kind) {
  const oi_tensor_desc& in_desc = call.inputs[0];
  if ((kind != ReduceKind::Sum && kind != ReduceKind::Mean) || in_desc.dtype != dtype_tag_v<F> ||
      call.outputs[0].dtype != dtype_tag_v<F> || plan.count == 0 || plan.out_numel == 0) {
    return false;
  }
  const auto first = std::find(reduced.begin(), reduced.end(), true);
  if (first == reduced.end()) return false;
  const auto last = std::find(first, reduced.end(), false);
  if (std::find(last, reduced.end(), true) != reduced.end()) return false;  // not one block
  uint64_t outer = 1, inner = 1;
  for (auto k = reduced.begin(); k != first; ++k) outer *= in_desc.dims[k - reduced.begin()];
  for (auto k = last; k != reduced.end(); ++k) inner *= in_desc.dims[k - reduced.begin()];
  const uint64_t len = plan.count;
  const std::byte* in_bytes = input_data(call, 0);
  std::byte* out_bytes = output_data(call, 0);
  if (!is_aligned<F>(in_bytes) || !is_aligned<F>(out_bytes)) return false;
  const F* in = reinterpret_cast<const F*>(in_bytes);
  F* out = reinterpret_cast<F*>(out_bytes);
  const F scale = kind == ReduceKind::Mean ? static_cast<F>(len) : F{1};
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  if (inner == 1) {
    parallel_ranges(outer, len, [&](uint64_t begin, uint64_t end) {
      for (uint64_t o = begin; o < end; ++o) {
        const F* row = in + o * len;
        batch s0(-F{0}), s1(-F{0}), s2(-F{0}), s3(-F{0});  // sum_start: len > 0 here
        uint64_t i = 0;
        for (; i + 4 * lanes <= len; i += 4 * lanes) {
          s0 += batch::load_unaligned(row + i);
          s1 += batch::load_unaligned(row + i + lanes);
          s2 += batch::load_unaligned(row + i + 2 * lanes);
          s3 += batch::load_unaligned(row + i + 3 * lanes);
        }
        for (; i + lanes <= len; i += lanes) s0 += batch::load_unaligned(row + i);
        F r = xsimd::hadd((s0 + s1) + (s2 + s3));
        for (; i < len; ++i) r = r + row[i];
        out[o] = kind == ReduceKind::Mean ? r / scale : r;
      }
    });
    return true;
  }
  // Long reductions: fixed blocks of kRowBlock rows each give a partial sum, reading whole rows
  // contiguously, the blocks spread over the threads; the partials are then added in block
  // order. The blocking does not depend on the thread count, so neither do the results; the
  // order differs from input order, which ops.md's sum tolerance allows.
  constexpr uint64_t kRowBlock = 256;
  if (len >= 2 * kRowBlock && inner <= 16384) {
    const uint64_t blocks = (len + kRowBlock - 1) / kRowBlock;
    std::vector<F> partial(outer * blocks * inner);
    parallel_ranges(outer * blocks, kRowBlock * inner, [&](uint64_t begin, uint64_t end) {
      for (uint64_t t = begin; t < end; ++t) {
        const uint64_t o = t / blocks, r0 = (t % blocks) * kRowBlock;
        sum_rows_into(in + (o * len + r0) * inner, inner, std::min(kRowBlock, len - r0), inner,
                      partial.data() + t * inner);
      }
    });
    constexpr uint64_t cols = 1024;
    const uint64_t chunks = (inner + cols - 1) / cols;
    parallel_ranges(outer * chunks, blocks * cols, [&](uint64_t begin, uint64_t end) {
      for (uint64_t t = begin; t < end; ++t) {
        const uint64_t o = t / chunks, j0 = (t % chunks) * cols, n = std::min(cols, inner - j0);
        F* acc = out + o * inner + j0;
        sum_rows_into(partial.data() + o * blocks * inner + j0, inner, blocks, n, acc);
        if (kind == ReduceKind::Mean) {
          for (uint64_t j = 0; j < n; ++j) acc[j] = acc[j] / scale;
        }
      }
    });
    return true;
  }
  // Column tiles of `tile` outputs, each summed over the reduced rows in input order. A tile's
  // accumulators stay in L1 while the rows stream past; tiles are small enough that every
  // thread gets a few (axis 0 of one matrix is a single `outer`), and at least a page wide so
  // that each row's read is a long sequential run.
  const uint64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const uint64_t tile = std::clamp<uint64_t>((inner / (2 * threads) + 63) / 64 * 64, 1024, 4096);
  const uint64_t tiles_per_outer = (inner + tile - 1) / tile;
  parallel_ranges(outer * tiles_per_outer, len * std::min(inner, tile),
                  [&](uint64_t begin, uint64_t end) {
                    for (uint64_t t = begin; t < end; ++t) {
                      const uint64_t o = t / tiles_per_outer, j0 = (t % tiles_per_outer) * tile;
                      const uint64_t n = std::min(tile, inner - j0);
                      sum_rows_into(in + o * len * inner + j0, inner, len, n, out + o * inner + j0);
                      if (kind == ReduceKind::Mean) {
                        F* acc = out + o * inner + j0;
                        for (uint64_t j = 0; j < n; ++j) acc[j] = acc[j] / scale;
                      }
                    }
                  });
  return true;
}

}  // namespace

oi_status* run_reduction(const oi_kernel_call* call, ReduceKind kind) {
  OI_ABI_TRY
  const oi_tensor_desc& in = call->inputs[0];
  const bool arg = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
  std::vector<bool> reduced;
  int along = -1;
  if (arg) {
    reduced.assign(in.rank, false);
    if (in.rank > 0) {
      along = normalize_axis(abi::setting_int(*call, "axis", 0), in.rank);
      reduced[along] = true;
    }
  } else {
    reduced = reduced_axes(*call, in.rank);
  }
  ReducePlan plan(in, reduced);
  plan.along = along;
  const bool needs_values = kind == ReduceKind::Max || kind == ReduceKind::Min || arg;
  if (needs_values && plan.count == 0 && plan.out_numel > 0) {
    fail(OI_STATUS_INVALID_ARGUMENT, "cpu: max/min/argmax/argmin over an empty axis");
  }
  const ElemIO& io = elem_io(in.dtype);
  if (arg) {
    arg_extreme(*call, plan, kind == ReduceKind::ArgMax);
  } else if (fast_float_sum<float>(*call, reduced, plan, kind) ||
             fast_float_sum<double>(*call, reduced, plan, kind)) {
    // done
  } else if (io.domain() == Domain::F32) {
    fold_floats<float>(*call, plan, kind, [](const ElemIO& t, const std::byte* p, uint64_t i) {
      return t.ld_f32(p, i);
    });
  } else if (io.domain() == Domain::F64) {
    fold_floats<double>(*call, plan, kind, [](const ElemIO& t, const std::byte* p, uint64_t i) {
      return t.ld_f64(p, i);
    });
  } else {
    fold_ints(*call, plan, kind);
  }
  OI_ABI_CATCH(call->host)
}

void add_reduction_kernels(KernelList& list, const char* op, oi_kernel_fn fn, bool accumulate,
                           uint32_t out) {
  add_each(list, op, {kFloats, kSigned, kUnsigned}, 1, fn, false, out);
  if (!accumulate) return;
  const uint32_t pairs[][2] = {{dt::I8, dt::I16},  {dt::I8, dt::I32},  {dt::I8, dt::I64},
                               {dt::I16, dt::I32}, {dt::I16, dt::I64}, {dt::I32, dt::I64},
                               {dt::U8, dt::U16},  {dt::U8, dt::U32},  {dt::U8, dt::U64},
                               {dt::U16, dt::U32}, {dt::U16, dt::U64}, {dt::U32, dt::U64}};
  for (const auto& p : pairs) list.add(op, {p[0]}, p[1], OI_KERNEL_MODE_ACCUMULATE, fn);
  for_each_packed_accumulate_pair(
      [&](uint32_t in, uint32_t acc) { list.add(op, {in}, acc, OI_KERNEL_MODE_ACCUMULATE, fn); });
}

}  // namespace oi::cpu
