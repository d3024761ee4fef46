#include "tensor_copy.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "openinfer/error.hpp"

namespace oi::exec {

Tensor filled_tensor(DType dtype, const Shape& shape, const std::optional<Value>& init) {
  Tensor t(dtype, shape);
  if (!init || t.numel() == 0) return t;
  const Value& v = *init;
  bool zero =
      (v.kind == Value::Kind::Int && v.int_value == 0) ||
      (v.kind == Value::Kind::Bool && !v.bool_value) ||
      (v.kind == Value::Kind::Float && v.float_value == 0.0 && !std::signbit(v.float_value));
  if (zero) return t;
  if (v.kind == Value::Kind::Float) {
    t.set_float(0, v.float_value);
  } else if (v.kind == Value::Kind::Bool) {
    t.set_int(0, v.bool_value ? 1 : 0);
  } else if (v.kind == Value::Kind::Int) {
    if (is_float(dtype)) {
      t.set_float(0, v.int_as_double());
    } else {
      t.set_int(0, v.int_value);
    }
  } else {
    throw input_error("@init value of kind " + std::string(value_kind_name(v.kind)) +
                      " cannot fill a " + std::string(dtype_name(dtype)) + " tensor");
  }
  if (is_packed(dtype)) {
    uint64_t raw = t.get_raw(0);
    for (uint64_t i = 1; i < t.numel(); ++i) t.set_raw(i, raw);
    return t;
  }
  auto bytes = t.mutable_bytes();
  size_t width = dtype_bits(dtype) / 8;
  for (size_t off = width; off < bytes.size(); off += width)
    std::memcpy(bytes.data() + off, bytes.data(), width);
  return t;
}

void copy_elements(const Tensor& src, uint64_t src_offset, Tensor& dst, uint64_t dst_offset,
                   uint64_t count) {
  if (count == 0) return;
  if (!is_packed(src.dtype())) {
    size_t width = dtype_bits(src.dtype()) / 8;
    std::memcpy(dst.mutable_bytes().data() + dst_offset * width,
                src.bytes().data() + src_offset * width, count * width);
    return;
  }
  for (uint64_t i = 0; i < count; ++i) dst.set_raw(dst_offset + i, src.get_raw(src_offset + i));
}

void copy_region(const Tensor& src, std::span<const uint64_t> src_start, Tensor& dst,
                 std::span<const uint64_t> dst_start, std::span<const uint64_t> extent) {
  size_t rank = extent.size();
  for (uint64_t e : extent)
    if (e == 0) return;
  if (rank == 0) {
    copy_elements(src, 0, dst, 0, 1);
    return;
  }
  // Row-major strides; the innermost axis is copied as one run.
  auto strides = [](const Shape& shape) {
    std::vector<uint64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
  };
  auto ss = strides(src.shape());
  auto ds = strides(dst.shape());
  std::vector<uint64_t> pos(rank, 0);
  while (true) {
    uint64_t so = 0, d = 0;
    for (size_t a = 0; a < rank; ++a) {
      so += (src_start[a] + pos[a]) * ss[a];
      d += (dst_start[a] + pos[a]) * ds[a];
    }
    copy_elements(src, so, dst, d, extent[rank - 1]);
    size_t axis = rank - 1;
    while (axis-- > 0) {
      if (++pos[axis] < extent[axis]) break;
      pos[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

int64_t scalar_int(const Tensor& t) {
  if (t.numel() != 1) {
    throw input_error("expected a scalar, got a tensor of shape " + shape_to_string(t.shape()));
  }
  if (is_float(t.dtype())) {
    throw input_error("expected an integer scalar, got " + std::string(dtype_name(t.dtype())));
  }
  return t.get_int(0);
}

}  // namespace oi::exec
