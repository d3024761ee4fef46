// f16 and bf16 elementwise fast paths: blocks are widened to f32 in registers, computed in f32
// and rounded once to nearest even (NaN stays NaN with the quiet bit set), which is exactly
// what the type-erased path gives for these ops. AVX2 (+F16C for f16) is chosen at run time,
// since the plugin is built for generic x86-64; elsewhere a portable scalar loop runs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oi::cpu::half {

enum class Format { F16, BF16 };
enum class Arith { Add, Sub, Mul, Div };

// out[i] = a[i * a_step] op b[i * b_step] for i < n; steps are 0 (broadcast) or 1. Pointers
// may sit at any byte offset. With has_mask, div gives `mask` where b == 0.
struct BinaryRun {
  const std::byte* a;
  const std::byte* b;
  std::byte* out;
  uint64_t a_step, b_step, n;
  bool has_mask = false;
  float mask = 0.0f;
  bool stream = false;  // non-temporal stores (large outputs not aliasing an input)
};
void binary(Format format, Arith op, const BinaryRun& run);

// relu in f32 (ops.md): a >= 0 ? a : alpha * a, a zero result +0, clamped to [lo, hi].
struct ReluParams {
  float alpha, lo, hi;
  bool stream = false;  // as in BinaryRun
};
void relu(Format format, const std::byte* in, std::byte* out, uint64_t n, const ReluParams& p);

// Whether the vector path runs on this CPU (for tests and the bench's report).
bool has_vector_path(Format format);

}  // namespace oi::cpu::half
