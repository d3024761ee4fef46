// Moving data in generated C (ops-nn.md, bit-exact, f32/f64/i32): reshape, transpose, slice,
// concat, pad (constant, reflect, edge), gather, iota. Shapes are known when the code is
// written, so each op becomes nested loops whose source and destination offsets are affine in
// the loop counters, with the constants folded in.
#include <algorithm>

#include "c_ops.hpp"
#include "openinfer/slice_range.hpp"

namespace oi::c_emitter {
namespace {

std::string signed_term(const std::string& counter, int64_t coef) {
  if (coef == 0) return "";
  return " + (ptrdiff_t)" + counter + " * (" + std::to_string(coef) + ")";
}

// dst[dbase + sum c_k * dcoef_k] = src[sbase + sum c_k * scoef_k] over every c in `dims`.
void affine_copy(std::ostringstream& c, const std::vector<uint64_t>& dims, int64_t sbase,
                 const std::vector<int64_t>& scoef, const std::string& src, int64_t dbase,
                 const std::vector<int64_t>& dcoef, const std::string& dst) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  if (n == 0) return;
  std::string sidx = "(ptrdiff_t)" + std::to_string(sbase),
              didx = "(ptrdiff_t)" + std::to_string(dbase);
  std::string indent = "    ";
  for (size_t k = 0; k < dims.size(); ++k) {
    const std::string ck = "c" + std::to_string(k);
    c << indent << "for (size_t " << ck << " = 0; " << ck << " < " << u(dims[k]) << "; ++" << ck
      << ")\n";
    indent += "  ";
    sidx += signed_term(ck, scoef[k]);
    didx += signed_term(ck, dcoef[k]);
  }
  c << indent << dst << "[" << didx << "] = " << src << "[" << sidx << "];\n";
}

std::vector<int64_t> as_signed(const std::vector<uint64_t>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

int64_t axis_of(int64_t axis, size_t rank, const std::string& where) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= std::max<int64_t>(r, 1))
    invalid_plan(where + ": axis " + std::to_string(axis) + " is out of range");
  return axis < 0 ? axis + r : axis;
}

void reshape(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  check_settings(op.at("settings").as_object(), {}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  if (x.numel() != y.numel() || x.dtype != y.dtype)
    invalid_plan(where + ": the output does not have the input's elements");
  c << "    memcpy(o, p_" << x.name << ", " << y.bytes << "u);\n";
}

void transpose(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"perm"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  std::vector<int64_t> perm = int_list_setting(settings, "perm", where);
  const size_t rank = x.shape.size();
  if (!settings.contains("perm"))
    for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  if (perm.size() != rank) invalid_plan(where + ": 'perm' needs one entry per axis");
  const auto in_st = strides_of(x.shape);
  std::vector<uint64_t> dims;
  std::vector<int64_t> scoef;
  for (int64_t p : perm) {
    const int64_t a = axis_of(p, rank, where);
    dims.push_back(x.shape[a]);
    scoef.push_back(static_cast<int64_t>(in_st[a]));
  }
  if (dims != y.shape) invalid_plan(where + ": the output has another shape");
  affine_copy(c, dims, 0, scoef, "p_" + x.name, 0, as_signed(strides_of(dims)), "o");
}

// ONNX Slice: the ranges of openinfer/slice_range.hpp (the SDK's, as the backends plan it).
void slice(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"starts", "ends", "axes", "steps"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  const auto starts = int_list_setting(settings, "starts", where),
             ends = int_list_setting(settings, "ends", where),
             axes = int_list_setting(settings, "axes", where),
             steps = int_list_setting(settings, "steps", where);
  const size_t rank = x.shape.size();
  const geometry::SliceRanges r = geometry::slice_ranges(
      x.shape, {starts, ends, axes, steps, settings.contains("axes"), settings.contains("steps")});
  switch (r.error) {
    case geometry::SliceError::none:
      break;
    case geometry::SliceError::lengths:
    case geometry::SliceError::too_many:
      invalid_plan(where + ": starts, ends, axes and steps differ in length");
    case geometry::SliceError::axis_range:
      invalid_plan(where + ": axis " + std::to_string(r.axis) + " is out of range");
    case geometry::SliceError::axis_repeated:
      invalid_plan(where + ": an axis is repeated");
    case geometry::SliceError::zero_step:
      invalid_plan(where + ": a step is 0");
  }
  const std::vector<uint64_t> count = r.counts();
  if (count != y.shape) invalid_plan(where + ": the output has another shape");
  const auto in_st = strides_of(x.shape);
  int64_t base = 0;
  std::vector<int64_t> scoef(rank);
  for (size_t k = 0; k < rank; ++k) {
    base += r.axes[k].start * static_cast<int64_t>(in_st[k]);
    scoef[k] = r.axes[k].step * static_cast<int64_t>(in_st[k]);
  }
  affine_copy(c, count, base, scoef, "p_" + x.name, 0, as_signed(strides_of(count)), "o");
}

void concat(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"axis"}, where);
  const Value& y = env.value(str(op.at("output")));
  const int64_t axis = axis_of(int_setting(settings, "axis", 0, where), y.shape.size(), where);
  const auto out_st = as_signed(strides_of(y.shape));
  uint64_t offset = 0;
  for (const auto& in : op.at("inputs").as_array()) {
    const Value& x = whole_operand(env, in, op);
    if (x.shape.size() != y.shape.size() || x.dtype != y.dtype)
      invalid_plan(where + ": an input of another rank or dtype");
    affine_copy(c, x.shape, 0, as_signed(strides_of(x.shape)), "p_" + x.name,
                static_cast<int64_t>(offset) * out_st[axis], out_st, "o");
    offset += x.shape[axis];
  }
  if (offset != y.shape[axis]) invalid_plan(where + ": the output has another shape");
}

// pad: output index c of an axis reads input index c - begin; outside [0, dim) the constant
// `value`, the mirror without the edge (reflect: -j, 2 (dim - 1) - j) or the edge.
void pad(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"pads", "mode", "value"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  const auto pads = int_list_setting(settings, "pads", where);
  const std::string mode = settings.contains("mode") ? str(settings.at("mode")) : "constant";
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    throw LibraryInstead("c emitter: " + where + ": mode '" + mode +
                         "': left to the C kernel library");
  const size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) invalid_plan(where + ": 'pads' needs a begin and an end per axis");
  std::vector<uint64_t> odims(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t b = pads[k], e = pads[k + rank], d = static_cast<int64_t>(x.shape[k]);
    const bool padded = b > 0 || e > 0;
    if (b < 0 || e < 0 || (mode == "reflect" && padded && (b >= d || e >= d)) ||
        (mode == "edge" && padded && d == 0))
      invalid_plan(where + ": the pads of axis " + std::to_string(k) +
                   " do not suit its size and the mode");
    odims[k] = x.shape[k] + static_cast<uint64_t>(b + e);
  }
  if (odims != y.shape) invalid_plan(where + ": the output has another shape");
  if (y.numel() == 0) return;
  const std::string value = mode == "constant" && settings.contains("value")
                                ? literal(settings.at("value"), y.dtype, "pad value")
                                : std::string("(") + c_type(y.dtype) + ")0";
  const auto in_st = strides_of(x.shape);
  std::string indent = "    ", src = "0", inside;
  c << indent << "size_t i = 0;\n";
  for (size_t k = 0; k < rank; ++k) {
    const std::string ck = "c" + std::to_string(k), jk = "j" + std::to_string(k);
    const int64_t b = pads[k], d = static_cast<int64_t>(x.shape[k]);
    c << indent << "for (size_t " << ck << " = 0; " << ck << " < " << u(odims[k]) << "; ++" << ck
      << ") {\n";
    indent += "  ";
    c << indent << "const ptrdiff_t " << jk << "_ = (ptrdiff_t)" << ck << " - " << b << ";\n";
    if (mode == "constant") {
      c << indent << "const ptrdiff_t " << jk << " = " << jk << "_;\n";
      inside += std::string(inside.empty() ? "" : " && ") + jk + " >= 0 && " + jk + " < " +
                std::to_string(d);
    } else if (mode == "reflect") {
      c << indent << "const ptrdiff_t " << jk << " = " << jk << "_ < 0 ? -" << jk << "_ : " << jk
        << "_ >= " << d << " ? " << 2 * (d - 1) << " - " << jk << "_ : " << jk << "_;\n";
    } else {
      c << indent << "const ptrdiff_t " << jk << " = " << jk << "_ < 0 ? 0 : " << jk << "_ >= " << d
        << " ? " << d - 1 << " : " << jk << "_;\n";
    }
    src += " + " + jk + " * " + std::to_string(in_st[k]);
  }
  if (inside.empty())
    c << indent << "o[i++] = p_" << x.name << "[" << src << "];\n";
  else
    c << indent << "o[i++] = (" << inside << ") ? p_" << x.name << "[" << src << "] : " << value
      << ";\n";
  for (size_t k = rank; k-- > 0;) {
    indent.resize(indent.size() - 2);
    c << indent << "}\n";
  }
}

// iota: each element is its index along `axis` (default -1), in the output's dtype.
void iota(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"axis"}, where);
  const Value& y = env.value(str(op.at("output")));
  if (y.dtype == "f16" || y.dtype == "bf16" || y.dtype == "f8")  // stored as bits: the library's
    throw LibraryInstead("c emitter: " + where + " on " + y.dtype +
                         ": left to the C kernel library");
  if (y.numel() == 0) return;
  const int64_t axis = axis_of(int_setting(settings, "axis", -1, where), y.shape.size(), where);
  const uint64_t len = y.shape.empty() ? 1 : y.shape[axis],
                 inner = y.shape.empty() ? 1 : strides_of(y.shape)[axis];
  c << "    for (size_t i = 0; i < " << u(y.numel()) << "; ++i) o[i] = (" << c_type(y.dtype)
    << ")(i / " << u(inner) << " % " << u(len) << ");\n";
}

// gather(data, indices): data's `axis` replaced by the indices' dims. Every index is checked
// before anything is written; one out of range stops the step with NAME_ERR_RUN.
void gather(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"axis"}, where);
  const auto& ins = op.at("inputs").as_array();
  const Value& data = whole_operand(env, ins.at(0), op);
  const Value& idx = whole_operand(env, ins.at(1), op);
  const Value& y = env.value(str(op.at("output")));
  if (idx.dtype != "i32" && idx.dtype != "i64")
    throw LibraryInstead("c emitter: " + where + " with " + idx.dtype + " indices");
  const int64_t axis = axis_of(int_setting(settings, "axis", 0, where), data.shape.size(), where);
  uint64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= data.shape[k];
  for (size_t k = axis + 1; k < data.shape.size(); ++k) inner *= data.shape[k];
  const uint64_t len = data.shape[axis], nidx = idx.numel();
  if (y.numel() != outer * nidx * inner) invalid_plan(where + ": the output has another shape");
  const std::string line = json::serialize(op.at("line"));
  if (nidx == 0) return;
  c << "    for (size_t q = 0; q < " << u(nidx) << "; ++q) {\n"
    << "      const int64_t v = p_" << idx.name << "[q];\n"
    << "      if (v < -" << len << "ll || v >= " << len << "ll) {\n"
    << "        s->failed = fail(s, " << env.prefix() << "_ERR_RUN, \"gather (line " << line
    << "): index %lld is out of range for axis " << axis << " of size " << len << " (allowed -"
    << len << ".." << static_cast<int64_t>(len) - 1 << ")\", (long long)v);\n"
    << "        return;\n      }\n    }\n";
  if (y.numel() == 0) return;
  c << "    for (size_t r = 0; r < " << u(outer) << "; ++r)\n"
    << "      for (size_t q = 0; q < " << u(nidx) << "; ++q) {\n"
    << "        const int64_t v = p_" << idx.name << "[q];\n"
    << "        const size_t at = (size_t)(v < 0 ? v + " << len << "ll : v);\n"
    << "        memcpy(o + (r * " << u(nidx) << " + q) * " << u(inner) << ", p_" << data.name
    << " + (r * " << u(len) << " + at) * " << u(inner) << ", " << inner * dtype_size(y.dtype)
    << "u);\n      }\n";
}

}  // namespace

void register_movement_ops(OpTable& t) {
  t.ops["reshape"] = reshape;
  t.ops["transpose"] = transpose;
  t.ops["slice"] = slice;
  t.ops["concat"] = concat;
  t.ops["pad"] = pad;
  t.ops["iota"] = iota;
  t.ops["gather"] = gather;
  t.fallible.insert("gather");
}

}  // namespace oi::c_emitter
