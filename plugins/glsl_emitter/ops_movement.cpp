// Moving data (ops-nn.md, bit-exact; f32, f64, i32, u32, and f16, bool, i64, u64): reshape,
// transpose, slice, concat, pad (constant, reflect, edge), gather, iota. One invocation per
// output element in a grid-stride loop: its coordinates come from the flat index, the source
// index is affine in them with the constants folded in. Buffers are declared as uint (uvec2 for
// 8-byte dtypes, uint16_t for f16, uint8_t for bool), so elements move bit for bit (NaN payloads
// and signed zeros too) whatever the dtype.
#include <algorithm>

#include "openinfer/slice_range.hpp"
#include "ops.hpp"

namespace oi::glsl {
namespace {

size_t axis_of(const OpIn& op, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= std::max<int64_t>(r, 1))
    invalid(op_where(op) + ": axis " + std::to_string(axis) + " is out of range");
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

const ValueIn& input(ShaderBuilder& sb, const OpIn& op, size_t k) {
  if (op.inputs.size() <= k) invalid(op_where(op) + ": missing input " + std::to_string(k));
  return sb.value(op.inputs[k]);
}

const ValueIn& output_like(ShaderBuilder& sb, const OpIn& op, const ValueIn& x) {
  const ValueIn& y = sb.value(op.output);
  if (y.dtype != x.dtype) invalid(op_where(op) + ": the output's dtype differs from the input's");
  if (!storable_dtype(y.dtype)) sb.type_of(y.name);  // refuses dtypes the target lacks
  sb.check_count(std::max(product(y.shape), product(x.shape)), "element count");
  sb.use_raw_bits();
  return y;
}

// base + sum over k of coordinate k of `var` (over dims) times coef[k], as an int expression.
std::string affine(const std::vector<uint64_t>& dims, int64_t base,
                   const std::vector<int64_t>& coef, const std::string& var) {
  std::string e = std::to_string(base);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (coef[k] == 0 || dims[k] == 1) continue;
    e += " + int(" + coordinate(dims, k, var) + ") * " + s(coef[k]);
  }
  return e;
}

std::vector<int64_t> as_signed(const std::vector<uint64_t>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

KernelShader copy_kernel(ShaderBuilder& sb, const char* kind, const ValueIn& x, const ValueIn& y,
                         const std::string& source_index) {
  const std::string body =
      "    " + sb.buffer(y.name) + "[i] = " + sb.buffer(x.name) + "[" + source_index + "];\n";
  return sb.grid(kind, product(y.shape), body);
}

KernelShader reshape(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"shape"});
  const ValueIn& x = input(sb, op, 0);
  const ValueIn& y = output_like(sb, op, x);
  if (product(x.shape) != product(y.shape))
    invalid(op_where(op) + ": the output does not have the input's element count");
  return copy_kernel(sb, "reshape", x, y, "i");
}

KernelShader transpose(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"perm"});
  const ValueIn& x = input(sb, op, 0);
  const ValueIn& y = output_like(sb, op, x);
  const size_t rank = x.shape.size();
  std::vector<int64_t> perm = sb.int_list(op, "perm");
  if (!sb.setting(op, "perm"))
    for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  if (perm.size() != rank) invalid(op_where(op) + ": 'perm' needs one entry per axis");
  const auto in_st = strides_of(x.shape);
  std::vector<uint64_t> dims;
  std::vector<int64_t> coef;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    const size_t a = axis_of(op, p, rank);
    if (seen[a]) invalid(op_where(op) + ": 'perm' repeats an axis");
    seen[a] = true;
    dims.push_back(x.shape[a]);
    coef.push_back(static_cast<int64_t>(in_st[a]));
  }
  if (dims != y.shape) invalid(op_where(op) + ": the output has another shape");
  return copy_kernel(sb, "transpose", x, y, "uint(" + affine(dims, 0, coef, "i") + ")");
}

// ONNX Slice: the ranges of openinfer/slice_range.hpp (the SDK's, as the backends plan it).
KernelShader slice(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"starts", "ends", "axes", "steps"});
  const ValueIn& x = input(sb, op, 0);
  const ValueIn& y = output_like(sb, op, x);
  const auto starts = sb.int_list(op, "starts"), ends = sb.int_list(op, "ends"),
             axes = sb.int_list(op, "axes"), steps = sb.int_list(op, "steps");
  const size_t rank = x.shape.size();
  const geometry::SliceRanges r =
      geometry::slice_ranges(x.shape, {starts, ends, axes, steps, sb.setting(op, "axes") != nullptr,
                                       sb.setting(op, "steps") != nullptr});
  switch (r.error) {
    case geometry::SliceError::none:
      break;
    case geometry::SliceError::lengths:
    case geometry::SliceError::too_many:
      invalid(op_where(op) + ": starts, ends, axes and steps differ in length");
    case geometry::SliceError::axis_range:
      invalid(op_where(op) + ": axis " + std::to_string(r.axis) + " is out of range");
    case geometry::SliceError::axis_repeated:
      invalid(op_where(op) + ": an axis is repeated");
    case geometry::SliceError::zero_step:
      invalid(op_where(op) + ": a step is 0");
  }
  const std::vector<uint64_t> count = r.counts();
  if (count != y.shape) invalid(op_where(op) + ": the output has another shape");
  const auto in_st = strides_of(x.shape);
  int64_t base = 0;
  std::vector<int64_t> coef(rank);
  for (size_t k = 0; k < rank; ++k) {
    base += r.axes[k].start * static_cast<int64_t>(in_st[k]);
    coef[k] = r.axes[k].step * static_cast<int64_t>(in_st[k]);
  }
  return copy_kernel(sb, "slice", x, y, "uint(" + affine(count, base, coef, "i") + ")");
}

// concat: the output coordinate along `axis` picks the input; the others index it unchanged.
KernelShader concat(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"axis"});
  const ValueIn& x0 = input(sb, op, 0);
  const ValueIn& y = output_like(sb, op, x0);
  const size_t rank = y.shape.size();
  const size_t axis = axis_of(op, sb.int_setting(op, "axis", 0), rank);
  std::ostringstream b;
  b << "    const uint c = " << (rank ? coordinate(y.shape, axis, "i") : std::string("0u"))
    << ";\n";
  uint64_t offset = 0;
  std::string chain;
  for (size_t j = 0; j < op.inputs.size(); ++j) {
    const ValueIn& x = input(sb, op, j);
    if (x.shape.size() != rank || x.dtype != y.dtype)
      invalid(op_where(op) + ": input '" + x.name + "' has another rank or dtype");
    for (size_t k = 0; k < rank; ++k)
      if (k != axis && x.shape[k] != y.shape[k])
        invalid(op_where(op) + ": input '" + x.name + "' differs off the axis");
    const uint64_t len = x.shape[axis];
    if (len > 0) {
      // The input's flat index: the output's coordinates, the axis one less `offset`.
      std::vector<int64_t> coef = as_signed(strides_of(x.shape));
      const int64_t base = -static_cast<int64_t>(offset) * coef[axis];
      b << "    " << (chain.empty() ? "" : "else ") << "if (c < " << u(offset + len) << ") "
        << sb.buffer(y.name) << "[i] = " << sb.buffer(x.name) << "[uint("
        << affine(y.shape, base, coef, "i") << ")];\n";
      chain = "x";
    }
    offset += len;
  }
  if (offset != y.shape[axis]) invalid(op_where(op) + ": the output has another shape");
  return sb.grid("concat", product(y.shape), b.str());
}

// pad: output coordinate c of an axis reads input coordinate c - begin; outside [0, dim) the
// constant `value`, the mirror without the edge (reflect: -j, 2 (dim - 1) - j) or the edge.
KernelShader pad(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"pads", "mode", "value"});
  const ValueIn& x = input(sb, op, 0);
  const ValueIn& y = output_like(sb, op, x);
  const auto pads = sb.int_list(op, "pads");
  const std::string mode = sb.string_setting(op, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    unsupported(op_where(op) + ": mode '" + mode + "' (constant, reflect, edge are supported)");
  const size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) invalid(op_where(op) + ": 'pads' needs a begin and an end per axis");
  std::vector<uint64_t> odims(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t b = pads[k], e = pads[k + rank], d = static_cast<int64_t>(x.shape[k]);
    const bool padded = b > 0 || e > 0;
    if (b < 0 || e < 0 || (mode == "reflect" && padded && (b >= d || e >= d)) ||
        (mode == "edge" && padded && d == 0))
      invalid(op_where(op) + ": the pads of axis " + std::to_string(k) +
              " do not suit its size and the mode");
    odims[k] = x.shape[k] + static_cast<uint64_t>(b + e);
  }
  if (odims != y.shape) invalid(op_where(op) + ": the output has another shape");
  const json::value* value = sb.setting(op, "value");
  const std::string fill = mode == "constant" && value
                               ? literal_bits(*value, sb.type_of(y.name), op_where(op))
                               : sb.raw_zero(y.name);
  const auto in_st = strides_of(x.shape);
  std::ostringstream b;
  std::string src = "0", inside;
  for (size_t k = 0; k < rank; ++k) {
    const std::string j = "j" + std::to_string(k);
    const int64_t beg = pads[k], d = static_cast<int64_t>(x.shape[k]);
    b << "    int " << j << " = int(" << coordinate(odims, k, "i") << ") - " << beg << ";\n";
    if (mode == "constant")
      inside += std::string(inside.empty() ? "" : " && ") + j + " >= 0 && " + j + " < " + s(d);
    else if (mode == "reflect")
      b << "    " << j << " = " << j << " < 0 ? -" << j << " : " << j << " >= " << d << " ? "
        << s(2 * (d - 1)) << " - " << j << " : " << j << ";\n";
    else
      b << "    " << j << " = clamp(" << j << ", 0, " << s(d - 1) << ");\n";
    if (in_st[k] != 0 && x.shape[k] != 1) src += " + " + j + " * " + std::to_string(in_st[k]);
  }
  const std::string load = sb.buffer(x.name) + "[uint(" + src + ")]";
  b << "    " << sb.buffer(y.name)
    << "[i] = " << (inside.empty() ? load : "(" + inside + ") ? " + load + " : " + fill) << ";\n";
  return sb.grid("pad", product(y.shape), b.str());
}

// iota: each element is its index along `axis` (default -1), in the output's dtype.
KernelShader iota(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"axis"});
  const ValueIn& y = sb.value(op.output);
  const std::string t = sb.type_of(y.name);
  sb.check_count(product(y.shape), "element count");
  sb.use_raw_bits();
  const size_t axis =
      y.shape.empty() ? 0 : axis_of(op, sb.int_setting(op, "axis", -1), y.shape.size());
  const std::string c = y.shape.empty() ? "0u" : coordinate(y.shape, axis, "i");
  const std::string v = t == "float"    ? "floatBitsToUint(float(" + c + "))"
                        : t == "double" ? "unpackDouble2x32(double(" + c + "))"
                                        : c;
  return sb.grid("iota", product(y.shape), "    " + sb.buffer(y.name) + "[i] = " + v + ";\n");
}

// gather(data, indices): data's `axis` replaced by the indices' dims; i32 or i64 indices (an i64
// one beyond the i32 range is out of range), negative ones from the end. An index out of range is
// reported through the status buffer (the host stops after the step with the message); its elements
// are written as zero, never read out of bounds.
KernelShader gather(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"axis"});
  const ValueIn& data = input(sb, op, 0);
  const ValueIn& idx = input(sb, op, 1);
  if (idx.dtype != "i32" && idx.dtype != "i64")
    unsupported(op_where(op) + ": " + idx.dtype + " indices (i32 and i64 indices are supported)");
  const ValueIn& y = output_like(sb, op, data);
  const size_t axis = axis_of(op, sb.int_setting(op, "axis", 0), data.shape.size());
  const uint64_t outer = product(data.shape, 0, axis), inner = product(data.shape, axis + 1);
  const uint64_t len = data.shape.empty() ? 1 : data.shape[axis], nidx = product(idx.shape);
  if (product(y.shape) != outer * nidx * inner)
    invalid(op_where(op) + ": the output has another shape");
  std::ostringstream b;
  b << "    const uint t = i % " << u(inner) << ", q = (i / " << u(inner) << ") % " << u(nidx)
    << ", r = i / " << u(inner * nidx) << ";\n"
    << (idx.dtype == "i32"
            ? "    int v = int(" + sb.buffer(idx.name) + "[q]);\n"
            : "    const uvec2 w = " + sb.buffer(idx.name) +
                  "[q];\n    const bool fits = w.y == (int(w.x) < 0 ? 0xffffffffu : 0u);\n"
                  "    int v = fits ? int(w.x) : int(0x80000000u);\n    if (!fits) " +
                  sb.fail("gather (line " + std::to_string(op.line) +
                              "): an i64 index (high word {value}) is out of range for axis " +
                              std::to_string(axis),
                          "w.y") +
                  "\n")
    << "    if (v < -" << len << " || v >= " << len << ") "
    << sb.fail("gather (line " + std::to_string(op.line) +
                   "): index {value} is out of range for axis " + std::to_string(axis) +
                   " of size " + std::to_string(len),
               "v")
    << "\n"
    << "    if (v < 0) v += " << len << ";\n"
    << "    " << sb.buffer(y.name) << "[i] = (v >= 0 && v < " << len << ") ? "
    << sb.buffer(data.name) << "[(r * " << u(len) << " + uint(v)) * " << u(inner)
    << " + t] : " << sb.raw_zero(y.name) << ";\n";
  return sb.grid("gather", product(y.shape), b.str());
}

}  // namespace

void register_movement_ops(OpRegistry& r) {
  r.ops["reshape"] = reshape;
  r.ops["transpose"] = transpose;
  r.ops["slice"] = slice;
  r.ops["concat"] = concat;
  r.ops["pad"] = pad;
  r.ops["iota"] = iota;
  r.ops["gather"] = gather;
}

}  // namespace oi::glsl
