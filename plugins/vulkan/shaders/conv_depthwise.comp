// Depthwise conv (each output channel reads one input channel: C/group = 1, any number of
// output channels a group) for f32, f16, bf16 and f8 computing in f32; kernels/conv_fast.cpp
// picks it. A workgroup computes a TH x TX tile of one output plane (image n, channel oc): it
// stages the input cells under the tile (halo included, 0 for padded cells) and the channel's
// weights in shared memory once, then each invocation computes R outputs of one column (rows
// ty, ty + TY, ...), reading each weight once for its R sums. Sums run over the taps in
// (kh, kw) order from 0; the bias is added last.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"
#include "half_formats.glsl"

layout(constant_id = 0) const uint TX = 32;  // output columns a tile; divides 256
layout(constant_id = 1) const uint R = 1;    // output rows each invocation
layout(constant_id = 2) const uint DT = 0;   // 0 f32, 3 f16, 4 bf16, 13 f8 (half_formats.glsl)
const uint WG = 256, TY = WG / TX;
layout(local_size_x = 256) in;

const uint MAX_CELLS = 6144;  // staged input cells (24 KiB); the host sizes tiles to fit
const uint MAX_TAPS = 1024;

// p: C, H, W, OC, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, output channels a group, flags
// (1: bias), x / w / b / y element offsets, staged rows, staged columns, tiles across a row.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
// restrict: y never overlaps the operands (conv runs in normal mode only), so reads of them may
// take the read-only cache path.
layout(std430, binding = 1) restrict readonly buffer X { uint x[]; };
layout(std430, binding = 2) restrict readonly buffer Wt { uint w[]; };
layout(std430, binding = 3) restrict readonly buffer Bias { uint bs[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

shared float cells[MAX_CELLS];
shared float taps[MAX_TAPS];

const uint BYTES = DT == 0u ? 4u : DT == 13u ? 1u : 2u;
#define LOAD(buf, k) (DT == 0u ? uintBitsToFloat(buf[k]) : widen_float(RAW_AT(buf, k, BYTES), DT))

void store(uint k, float v) {
  if (DT == 0u) {
    y[k] = floatBitsToUint(v);
    return;
  }
  const uint per = 4u / BYTES, shift = (k % per) * 8u * BYTES;
  const uint m = (BYTES == 1u ? 0xffu : 0xffffu) << shift;
  atomicAnd(y[k / per], ~m);
  atomicOr(y[k / per], (narrow_float(v, DT) << shift) & m);
}

void main() {
  const uint C = p[0], H = p[1], W = p[2], OC = p[3], OH = p[4], OW = p[5], KH = p[6], KW = p[7];
  const uint SH = p[8], SW = p[9], PH = p[10], PW = p[11], DH = p[12], DW = p[13];
  const uint per_group = p[14];
  const uint x0 = p[16], w0 = p[17], b0 = p[18], y0 = p[19];
  const uint rows = p[20], cols = p[21], tiles_w = p[22];

  const uint t = gl_LocalInvocationIndex, tx = t % TX, ty = t / TX;
  const uint tile_h = gl_WorkGroupID.x / tiles_w, tile_w = gl_WorkGroupID.x - tile_h * tiles_w;
  const uint oh0 = tile_h * (TY * R), ow0 = tile_w * TX;
  const uint oc = gl_WorkGroupID.y, n = gl_WorkGroupID.z;
  const uint x_base = x0 + (n * C + oc / per_group) * H * W;
  const int ih0 = int(oh0 * SH) - int(PH), iw0 = int(ow0 * SW) - int(PW);

  for (uint i = t; i < rows * cols; i += WG) {
    const uint r = i / cols, c = i - r * cols;
    const int ih = ih0 + int(r), iw = iw0 + int(c);
    cells[i] = uint(ih) < H && uint(iw) < W ? LOAD(x, x_base + uint(ih) * W + uint(iw)) : 0.0;
  }
  const uint ntaps = KH * KW;
  for (uint i = t; i < ntaps; i += WG) taps[i] = LOAD(w, w0 + oc * ntaps + i);
  barrier();

  float acc[R];
  [[unroll]] for (uint r = 0u; r < R; ++r) acc[r] = 0.0;
  const uint col0 = tx * SW, row_step = TY * SH * cols;
  for (uint kh = 0u; kh < KH; ++kh) {
    const uint at = (ty * SH + kh * DH) * cols + col0;
    for (uint kw = 0u; kw < KW; ++kw) {
      const float wv = taps[kh * KW + kw];
      [[unroll]] for (uint r = 0u; r < R; ++r) acc[r] += cells[at + r * row_step + kw * DW] * wv;
    }
  }
  const float bias = (p[15] & 1u) != 0u ? LOAD(bs, b0 + oc) : 0.0;
  const uint ow = ow0 + tx;
  if (ow >= OW) return;
  [[unroll]] for (uint r = 0u; r < R; ++r) {
    const uint oh = oh0 + ty + r * TY;
    if (oh < OH) store(y0 + ((n * OC + oc) * OH + oh) * OW + ow, acc[r] + bias);
  }
}
