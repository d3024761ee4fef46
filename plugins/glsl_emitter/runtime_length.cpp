// Kernels of run-time length through forms of the length (runtime_length.hpp).
#include "runtime_length.hpp"

#include <algorithm>
#include <set>

#include "openinfer/broadcast.hpp"
#include "openinfer/shape_rule_words.hpp"
#include "openinfer/slice_range.hpp"
#include "openinfer/window.hpp"
#include "refusal.hpp"
#include "runtime_access.hpp"
#include "runtime_length_errors.hpp"
#include "vulkan_kernels.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

std::string dims_text(const std::vector<uint64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

bool keepdims(const OpIn& op) {
  const json::value* k = op.settings.if_contains("keepdims");
  return k && k->is_bool() && k->as_bool();
}

std::optional<size_t> axis_of(int64_t a, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (a < -r || a >= r) return std::nullopt;
  return static_cast<size_t>(a < 0 ? a + r : a);
}

// floor((a * L + b) / c) (c > 0), as the host program evaluates it.
int64_t eval(int64_t a, int64_t b, int64_t c, int64_t L) {
  const int64_t n = a * L + b;
  return n >= 0 ? n / c : -((-n + c - 1) / c);
}

// The form through every point (L, v), or nullopt: c the smallest power of two that fits.
std::optional<std::array<int64_t, 3>> fit(const std::vector<std::pair<int64_t, int64_t>>& pts) {
  if (pts.empty()) return std::nullopt;
  const auto& [l0, v0] = pts.front();
  const auto& [l1, v1] = pts.back();
  for (int64_t c = 1; c <= (int64_t{1} << 20); c *= 2) {
    // a within (c (v1 - v0) +- (c - 1)) / (l1 - l0)
    std::vector<int64_t> as;
    if (l1 == l0) {
      as.push_back(0);
    } else {
      const int64_t lo = (c * (v1 - v0) - (c - 1)) / (l1 - l0) - 1;
      const int64_t hi = (c * (v1 - v0) + (c - 1)) / (l1 - l0) + 1;
      if (hi - lo > 64) continue;
      for (int64_t a = lo; a <= hi; ++a) as.push_back(a);
    }
    for (int64_t a : as) {
      // b in [c v - a L, c v - a L + c - 1] for every point
      int64_t blo = INT64_MIN, bhi = INT64_MAX;
      for (const auto& [l, v] : pts) {
        blo = std::max(blo, c * v - a * l);
        bhi = std::min(bhi, c * v - a * l + c - 1);
      }
      if (blo > bhi) continue;
      bool all = true;
      for (const auto& [l, v] : pts) all = all && eval(a, blo, c, l) == v;
      if (all) return std::array<int64_t, 3>{a, blo, c};
    }
  }
  return std::nullopt;
}

// Whether two recordings run the same work but for params words and workgroup counts.
bool same_layout(const KernelShader& a, const KernelShader& b) {
  if (a.dispatches.size() != b.dispatches.size() || a.checks.size() != b.checks.size() ||
      a.rope_tables.size() != b.rope_tables.size() || a.copies != b.copies ||
      a.scratch.size() != b.scratch.size() || a.entries.size() != b.entries.size())
    return false;
  for (size_t s = 0; s < a.scratch.size(); ++s)
    if (a.scratch[s].name != b.scratch[s].name) return false;
  for (size_t d = 0; d < a.dispatches.size(); ++d) {
    const VulkanDispatch &x = a.dispatches[d], &y = b.dispatches[d];
    if (x.variant != y.variant || x.spec != y.spec || x.values != y.values ||
        x.params.size() != y.params.size() || x.float_width != y.float_width ||
        x.also_f64 != y.also_f64 || x.exact_f32 != y.exact_f32)
      return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<uint64_t>> rule_result_shape(const OpIn& op,
                                                       const std::vector<std::vector<uint64_t>>& in,
                                                       std::string& why, bool* words) {
  const std::string& rule = op.shape_rule;
  if (words) *words = false;
  // a failure in the simulator's words (core/src/catalog/shape_rules*.cpp): the checks a
  // growing axis can fail at some lengths only
  auto said = [&](const std::string& w) {
    why = w;
    if (words) *words = true;
    return std::nullopt;
  };
  if (in.empty()) {
    why = "op '" + op.op + "' without inputs";
    return std::nullopt;
  }
  if (rule == "broadcast") {
    std::vector<uint64_t> out = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      if (!op.broadcast) {
        if (in[i] != out)
          return said("input shapes " + dims_text(out) + " and " + dims_text(in[i]) +
                      " differ and '" + op.op + "' does not broadcast");
        continue;
      }
      auto b = geometry::broadcast_shape(out, in[i]);
      if (!b)
        return said("input shapes " + dims_text(out) + " and " + dims_text(in[i]) +
                    " do not broadcast");
      out = std::move(*b);
    }
    return out;
  }
  if (rule == "same_as_input0" || rule == "same_as_input0_axis") return in[0];
  if (rule == "reduce_axes" || rule == "argreduce_axis") {
    const std::vector<uint64_t>& x = in[0];
    std::set<size_t> axes;
    if (rule == "argreduce_axis") {
      int64_t a = 0;
      if (const json::value* v = op.settings.if_contains("axis"); v && v->is_int64())
        a = v->as_int64();
      auto n = axis_of(a, x.size());
      if (!n) return said(shape_words::axis_error(a, x.size()));
      axes.insert(*n);
    } else if (const json::value* v = op.settings.if_contains("axes"); v && v->is_array()) {
      for (const json::value& a : v->as_array()) {
        auto n = a.is_int64() ? axis_of(a.as_int64(), x.size()) : std::nullopt;
        if (!n || !axes.insert(*n).second) {
          why = "axes " + json::serialize(*v) + " of rank " + std::to_string(x.size());
          return std::nullopt;
        }
      }
    } else {
      for (size_t i = 0; i < x.size(); ++i) axes.insert(i);
    }
    std::vector<uint64_t> out;
    for (size_t i = 0; i < x.size(); ++i)
      if (!axes.count(i))
        out.push_back(x[i]);
      else if (keepdims(op))
        out.push_back(1);
    return out;
  }
  auto int_setting = [&](const char* name, int64_t dflt) {
    const json::value* v = op.settings.if_contains(name);
    return v && v->is_int64() ? v->as_int64() : dflt;
  };
  auto fail = [&](const std::string& w) {
    why = w;
    return std::nullopt;
  };
  const std::vector<uint64_t>& x = in[0];
  // an axis setting in range, else the simulator's words
  auto axis_setting = [&](const char* name, int64_t dflt, std::optional<size_t>& ax) {
    const int64_t a = int_setting(name, dflt);
    ax = axis_of(a, x.size());
    if (!ax) said(shape_words::axis_error(a, x.size()));
    return ax.has_value();
  };
  if (rule == "transpose") {
    std::vector<uint64_t> out;
    if (const json::value* v = op.settings.if_contains("perm"); v && v->is_array()) {
      std::set<size_t> seen;
      for (const json::value& a : v->as_array()) {
        auto n = a.is_int64() ? axis_of(a.as_int64(), x.size()) : std::nullopt;
        if (!n || !seen.insert(*n).second) return fail("'perm' " + json::serialize(*v));
        out.push_back(x[*n]);
      }
      if (out.size() != x.size()) return fail("'perm' " + json::serialize(*v));
    } else {
      out.assign(x.rbegin(), x.rend());
    }
    return out;
  }
  if (rule == "concat") {
    std::optional<size_t> ax;
    if (!axis_setting("axis", 0, ax)) return std::nullopt;
    std::vector<uint64_t> out = x;
    for (size_t i = 1; i < in.size(); ++i) {
      bool ok = in[i].size() == x.size();
      for (size_t q = 0; ok && q < x.size(); ++q) ok = q == *ax || in[i][q] == x[q];
      if (!ok)
        return said("input " + std::to_string(i) + " has shape " + dims_text(in[i]) +
                    ", which does not match " + dims_text(x) + " outside axis " +
                    std::to_string(*ax));
      out[*ax] += in[i][*ax];
    }
    return out;
  }
  if (rule == "norm_trailing") {
    std::optional<size_t> ax;
    if (!axis_setting("axis", -1, ax)) return std::nullopt;
    const std::vector<uint64_t> trailing(x.begin() + static_cast<std::ptrdiff_t>(*ax), x.end());
    for (size_t i = 1; i < in.size(); ++i)
      if (in[i] != trailing)
        return said("input " + std::to_string(i) + " has shape " + dims_text(in[i]) +
                    " but must have " + dims_text(trailing) + ", the dims of " + dims_text(x) +
                    " from axis " + std::to_string(*ax));
    return x;
  }
  if (rule == "batch_norm") {
    if (x.size() < 2) return fail("batch_norm of rank below 2");
    for (size_t i = 1; i < in.size() && i < 5; ++i)
      if (in[i] != std::vector<uint64_t>{x[1]})
        return said(std::string("batch_norm ") +
                    (i == 1   ? "scale"
                     : i == 2 ? "bias"
                     : i == 3 ? "mean"
                              : "var") +
                    " " + dims_text(in[i]) + " must be [" + std::to_string(x[1]) +
                    "], one value per channel");
    return x;
  }
  if (rule == "dequantize" && in.size() >= 2) {
    if (in[1].size() > 1) return fail("dequantize scale of rank above 1");
    if (in[1].size() == 1) {
      std::optional<size_t> ax;
      if (!axis_setting("axis", 1, ax)) return std::nullopt;
      if (in[1][0] != x[*ax])
        return said("dequantize scale " + dims_text(in[1]) + " must have " +
                    std::to_string(x[*ax]) + " entries, x's size along axis " +
                    std::to_string(*ax));
    }
    if (in.size() > 2 && in[2] != in[1]) return fail("dequantize zero_point " + dims_text(in[2]));
    return x;
  }
  if (rule == "gather" && in.size() == 2) {
    std::optional<size_t> ax;
    if (!axis_setting("axis", 0, ax)) return std::nullopt;
    std::vector<uint64_t> out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(*ax));
    out.insert(out.end(), in[1].begin(), in[1].end());
    out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(*ax) + 1, x.end());
    return out;
  }
  if (rule == "pad") {
    const json::value* v = op.settings.if_contains("pads");
    if (!v || !v->is_array() || v->as_array().size() != 2 * x.size()) return fail("'pads'");
    std::string mode = "constant";
    if (const json::value* m = op.settings.if_contains("mode"); m && m->is_string())
      mode = std::string(m->as_string());
    std::vector<uint64_t> out = x;
    for (size_t a = 0; a < x.size(); ++a) {
      const json::value &jb = v->as_array()[a], &je = v->as_array()[a + x.size()];
      if (!jb.is_int64() || !je.is_int64()) return fail("'pads'");
      const int64_t b = jb.as_int64(), e = je.as_int64();
      const auto dim = static_cast<int64_t>(x[a]);
      if (b < 0 || e < 0) return fail("negative pads of axis " + std::to_string(a));
      if (mode == "reflect" && (b >= dim || e >= dim) && (b > 0 || e > 0))
        return said("reflect pads of axis " + std::to_string(a) +
                    " must be smaller than its size " + std::to_string(dim));
      if (mode == "edge" && dim == 0 && (b > 0 || e > 0))
        return said("edge padding of axis " + std::to_string(a) + ", which is empty");
      out[a] = x[a] + static_cast<uint64_t>(b + e);
    }
    return out;
  }
  if (rule == "attention" && in.size() >= 3) {
    std::vector<uint64_t> out;
    const std::string e =
        shape_words::attention_error(in[0], in[1], in[2], in.size() > 3 ? &in[3] : nullptr, out);
    if (!e.empty()) return said(e);
    return out;
  }
  // An integer list setting (absent: nullopt; not a list of integers: `bad` set).
  auto int_list = [&](const char* name, bool& bad) -> std::optional<std::vector<int64_t>> {
    const json::value* v = op.settings.if_contains(name);
    if (!v) return std::nullopt;
    std::vector<int64_t> out;
    if (!v->is_array()) bad = true;
    if (bad) return out;
    for (const json::value& e : v->as_array()) {
      if (!e.is_int64()) bad = true;
      out.push_back(e.is_int64() ? e.as_int64() : 0);
    }
    return out;
  };
  if (rule == "slice") {  // the counts of openinfer/slice_range.hpp (the validator's rule)
    bool bad = false;
    auto starts = int_list("starts", bad), ends = int_list("ends", bad);
    auto axes = int_list("axes", bad), steps = int_list("steps", bad);
    if (bad || !starts || !ends) return fail("slice settings");
    geometry::SliceSettings ss{*starts, *ends, {}, {}, axes.has_value(), steps.has_value()};
    if (axes) ss.axes = *axes;
    if (steps) ss.steps = *steps;
    const geometry::SliceRanges r = geometry::slice_ranges(x, ss);
    if (!r.ok()) return fail("slice of " + dims_text(x));
    return r.counts();
  }
  if (rule == "conv" || rule == "pool") {  // the windows of openinfer/window.hpp
    if (x.size() != 3 && x.size() != 4) return fail(op.op + " of " + dims_text(x));
    const size_t n = x.size() - 2;
    std::vector<uint64_t> out{x[0], x[1]};
    std::vector<int64_t> kernel;
    if (rule == "conv") {
      if (in.size() < 2 || in[1].size() != x.size()) return fail("conv weight");
      const std::vector<uint64_t>& w = in[1];
      const std::string e = shape_words::conv_channels_error(x, w, int_setting("group", 1));
      if (!e.empty()) return said(e);
      if (in.size() > 2 && in[2] != std::vector<uint64_t>{w[0]}) return fail("conv bias");
      out[1] = w[0];
      for (size_t i = 2; i < w.size(); ++i) {
        if (w[i] == 0) return fail("conv of an empty kernel");
        kernel.push_back(static_cast<int64_t>(w[i]));
      }
    }
    bool bad = false;
    auto list = [&](const char* name, int64_t dflt, int64_t minimum) {
      auto v = int_list(name, bad);
      if (!v) return std::vector<int64_t>(n, dflt);
      if (v->size() != n) bad = true;
      for (int64_t e : *v) bad = bad || e < minimum;
      return *v;
    };
    if (rule == "pool") kernel = list("kernel", 1, 1);
    const auto strides = list("strides", 1, 1);
    const auto dilations = rule == "conv" || op.settings.if_contains("dilations")
                               ? list("dilations", 1, 1)
                               : std::vector<int64_t>(n, 1);
    auto pads = int_list("pads", bad).value_or(std::vector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n) bad = true;
    for (int64_t e : pads) bad = bad || e < 0;
    if (bad) return fail(op.op + " settings");
    for (size_t i = 0; i < n; ++i) {
      const geometry::WindowAxis a{x[2 + i],
                                   static_cast<uint64_t>(kernel[i]),
                                   static_cast<uint64_t>(strides[i]),
                                   static_cast<uint64_t>(dilations[i]),
                                   static_cast<uint64_t>(pads[i]),
                                   static_cast<uint64_t>(pads[n + i])};
      if (!a.valid())
        return said("spatial axis " + std::to_string(i) + ": the window spans " +
                    std::to_string(a.span()) + " but the padded input has only " +
                    std::to_string(a.padded()));
      out.push_back(a.output());
    }
    return out;
  }
  if (rule == "rope") {  // the positions a scalar; the last axis even (pairs rotated)
    const std::string e =
        shape_words::rope_error(x, in.size() > 1 ? in[1] : std::vector<uint64_t>{});
    if (!e.empty()) return said(e);
    return x;
  }
  if (rule == "matmul" && in.size() == 2) {
    const std::vector<uint64_t>&a = in[0], &b = in[1];
    if (a.size() < 2 || b.size() < 2)
      return said("matmul needs inputs of rank >= 2, got " + dims_text(a) + " and " + dims_text(b));
    if (a[a.size() - 1] != b[b.size() - 2])
      return said("matmul inner dimensions differ: " + dims_text(a) + " x " + dims_text(b));
    auto batch = geometry::broadcast_shape(std::vector<uint64_t>(a.begin(), a.end() - 2),
                                           std::vector<uint64_t>(b.begin(), b.end() - 2));
    if (!batch)
      return said("matmul batch dimensions of " + dims_text(a) + " and " + dims_text(b) +
                  " do not broadcast");
    batch->push_back(a[a.size() - 2]);
    batch->push_back(b[b.size() - 1]);
    return *batch;
  }
  why = "op '" + op.op + "' of shape rule '" + rule +
        "', which the glsl target does not evaluate at run time";
  return std::nullopt;
}

KernelShader record_runtime_length(
    const PlanIn& plan, const DeviceIn& device, const KernelIn& k, const RuntimeOperand& ro,
    std::vector<std::pair<std::string, std::vector<uint64_t>>>& capacity) {
  if (k.ops.size() != 1) invalid_plan("kernel " + std::to_string(k.id) + " of run-time length");
  const OpIn& op = k.ops.front();
  const std::string where = op_where(op) + ": operand '" + ro.matrix + "', " + ro.kind + " ";
  auto gap = [&](const std::string& what) {
    if (ro.table_window) glsl_gap("table-window-operand", where + what);
    glsl_gap("auto-dim-operand", where + what);
  };
  PlanIn p = plan;
  auto set_shape = [&](const std::string& name, const std::vector<uint64_t>& shape) {
    ValueIn& v = p.values.at(p.value_index.at(name));
    v.shape = shape;
    v.elements = 1;
    for (uint64_t d : shape) v.elements *= d;
    v.bytes = dtype_bytes(v.dtype, v.elements);
  };
  std::set<std::string> runtime(ro.inputs.begin(), ro.inputs.end());
  const ValueIn& first = plan.value(ro.inputs.front());
  std::vector<uint64_t> declared = first.shape;
  std::vector<KernelShader> recorded;
  std::vector<std::vector<uint64_t>> results;
  std::vector<uint64_t> lengths;  // of each recording
  // Lengths where the op stops the step (runtime_length_errors.hpp), anywhere among the ones
  // recorded (the host program checks them first), or all of lo..hi.
  LengthErrors errors;
  for (uint64_t L = ro.lo; L <= ro.hi; ++L) {
    std::vector<uint64_t> shape = declared;
    shape[ro.axis] = L;
    for (const std::string& s : ro.inputs) set_shape(s, shape);
    std::vector<std::vector<uint64_t>> in;
    for (const std::string& t : op.inputs) {
      const ValueRef r = parse_ref(t);
      if (r.all || std::any_of(r.index.begin(), r.index.end(), [](const std::string& x) {
            return x.find("..") != std::string::npos;
          }))
        gap("beside another operand '" + t + "', a window of a table");
      in.push_back(p.value(r.name).shape);
    }
    std::string why;
    const std::vector<uint64_t>* plain =
        ro.output.empty() ? &p.value(parse_ref(op.output).name).shape : nullptr;
    bool words = false;
    std::optional<std::vector<uint64_t>> result = recorded_result_shape(op, in, plain, why, &words);
    std::string error;  // the simulator's, where it stops at this length
    if (!result && words) error = "op '" + op.op + "': " + why;
    if (result && plain && *result != *plain)
      error = "op '" + op.op + "' produces shape " + dims_text(*result) + " but output '" +
              parse_ref(op.output).name + "' has shape " + dims_text(*plain);
    if (!error.empty()) {
      errors.add(L, error);
      continue;
    }
    if (!result)
      gap("whose length " + std::to_string(L) + " along axis " + std::to_string(ro.axis) +
          " gives no result (" + why + ")");
    if (!ro.output.empty()) {
      if (result->size() != p.value(ro.output).shape.size())
        gap("whose result has another rank than the matrix it is stored into");
      set_shape(ro.output, *result);
    }
    results.push_back(*result);
    lengths.push_back(L);
    try {
      recorded.push_back(record_kernel(p, device, k));
    } catch (const std::exception& e) {
      gap("that the Vulkan backend's kernel cannot be recorded for at length " + std::to_string(L) +
          " (" + e.what() + ")");
    }
  }
  if (errors.runs() > 8)
    gap("whose op fails at lengths whose messages make more than 8 runs of one form");
  for (const std::string& s : ro.inputs) {
    std::vector<uint64_t> shape = declared;
    shape[ro.axis] = ro.hi;
    capacity.emplace_back(s, shape);
  }
  if (!ro.output.empty()) {  // each axis at its longest (a slice's may shrink as L grows)
    // (failing at every length, the kernel dispatches nothing: the output as declared)
    std::vector<uint64_t> most = results.empty() ? plan.value(ro.output).shape : results.front();
    for (const std::vector<uint64_t>& r : results)
      for (size_t a = 0; a < most.size(); ++a) most[a] = std::max(most[a], r[a]);
    capacity.emplace_back(ro.output, most);
  }

  RuntimeLengthKernel info;
  info.value = ro.inputs.front();
  info.axis = ro.axis;
  info.lo = ro.lo;
  info.hi = ro.hi;
  info.matrix = ro.matrix;
  info.at = op.at;
  info.access = runtime_access(op, ro);
  info.errors = errors.to_json();
  info.same_length = same_length(op, ro);
  if (recorded.empty()) {  // it stops the step at every length: nothing to dispatch
    KernelShader out;
    out.recorded = true;
    out.length = std::move(info);
    return out;
  }
  KernelShader out = recorded.front();
  out.dispatches.clear();
  // The forms over recordings [s, e) of one layout: each params word and workgroup count that
  // changes (dispatch d of the run, slot), then each axis of the result; nullopt where one
  // follows no form floor((a L + b) / c).
  using Forms = std::pair<std::vector<LengthForm>, std::vector<LengthShape>>;
  auto word = [&](size_t i, size_t d, size_t slot) -> int64_t {
    const VulkanDispatch& x = recorded[i].dispatches[d];
    return slot < 3 ? x.groups[slot] : x.params[slot - 3];
  };
  auto fit_range = [&](size_t s, size_t e) -> std::optional<Forms> {
    Forms f;
    auto fit_points = [&](auto&& value) -> std::optional<std::array<int64_t, 3>> {
      std::vector<std::pair<int64_t, int64_t>> pts;
      for (size_t i = s; i < e; ++i) pts.emplace_back(static_cast<int64_t>(lengths[i]), value(i));
      return fit(pts);
    };
    for (size_t d = 0; d < recorded[s].dispatches.size(); ++d)
      for (size_t slot = 0; slot < 3 + recorded[s].dispatches[d].params.size(); ++slot) {
        bool varies = false;
        for (size_t i = s; i < e; ++i) varies = varies || word(i, d, slot) != word(s, d, slot);
        if (!varies) continue;
        auto w = fit_points([&](size_t i) { return word(i, d, slot); });
        if (!w) return std::nullopt;
        f.first.push_back({d, slot, (*w)[0], (*w)[1], (*w)[2]});
      }
    if (!ro.output.empty())
      for (size_t a = 0; a < results[s].size(); ++a) {
        auto w = fit_points([&](size_t i) { return static_cast<int64_t>(results[i][a]); });
        if (!w) return std::nullopt;
        f.second.push_back({ro.output, a, (*w)[0], (*w)[1], (*w)[2]});
      }
    return f;
  };
  // Whether recording i follows forms `f` fitted from recording s on.
  auto holds = [&](const Forms& f, size_t s, size_t i) {
    const auto L = static_cast<int64_t>(lengths[i]);
    for (size_t d = 0; d < recorded[s].dispatches.size(); ++d)
      for (size_t slot = 0; slot < 3 + recorded[s].dispatches[d].params.size(); ++slot) {
        int64_t want = word(s, d, slot);
        for (const LengthForm& g : f.first)
          if (g.dispatch == d && g.slot == slot) want = eval(g.a, g.b, g.c, L);
        if (word(i, d, slot) != want) return false;
      }
    for (const LengthShape& g : f.second)
      if (static_cast<int64_t>(results[i][g.axis]) != eval(g.a, g.b, g.c, L)) return false;
    return true;
  };
  // The fallback where forms would take more than 8 segments: the recorded words, counts and
  // result axes that change over recordings [s, e) as tables of their values at each length
  // from the first (0 at the lengths between where the op stops the step).
  auto table_range = [&](size_t s, size_t e) {
    Forms f;
    const uint64_t from = lengths[s];
    auto table = [&](auto&& value) {
      std::vector<int64_t> t(lengths[e - 1] - from + 1, 0);
      for (size_t i = s; i < e; ++i) t[lengths[i] - from] = value(i);
      return t;
    };
    for (size_t d = 0; d < recorded[s].dispatches.size(); ++d)
      for (size_t slot = 0; slot < 3 + recorded[s].dispatches[d].params.size(); ++slot) {
        bool varies = false;
        for (size_t i = s; i < e; ++i) varies = varies || word(i, d, slot) != word(s, d, slot);
        if (varies)
          f.first.push_back(
              {d, slot, 0, 0, 1, table([&](size_t i) { return word(i, d, slot); }), from});
      }
    if (!ro.output.empty())
      for (size_t a = 0; a < results[s].size(); ++a)
        f.second.push_back({ro.output, a, 0, 0, 1, 0, 0,
                            table([&](size_t i) { return static_cast<int64_t>(results[i][a]); })});
    return f;
  };
  // Segments: the longest runs of lengths recorded with one layout whose words, counts and
  // result axes each follow one form (a slice's count clamped at some length starts another),
  // at most 8; else the runs of one layout, each with tables.
  bool tables = false;
  size_t start = 0;
  while (start < recorded.size()) {
    size_t end = start + 1;
    std::optional<Forms> cur = fit_range(start, end);  // one point always fits
    while (end < recorded.size() && same_layout(recorded[start], recorded[end])) {
      if (!tables && !holds(*cur, start, end)) {
        std::optional<Forms> next = fit_range(start, end + 1);
        if (!next) break;
        cur = std::move(next);
      }
      ++end;
    }
    if (tables) {
      cur = table_range(start, end);
    } else if (info.segments.size() == 8) {  // start again with tables
      tables = true;
      start = 0;
      info.segments.clear();
      info.forms.clear();
      info.shapes.clear();
      out.dispatches.clear();
      continue;
    }
    const KernelShader& base = recorded[start];
    // (lengths between its recordings where the op fails: the host program stops there first)
    LengthSegment seg{lengths[start], lengths[end - 1], out.dispatches.size(),
                      base.dispatches.size()};
    for (LengthForm g : cur->first) {
      g.dispatch += seg.first;
      info.forms.push_back(g);
    }
    for (LengthShape g : cur->second) {
      g.from = seg.from;
      g.to = seg.to;
      info.shapes.push_back(g);
    }
    for (const VulkanDispatch& d : base.dispatches) out.dispatches.push_back(d);
    // the kernel's own scratch at its largest, over every segment
    for (size_t i = start; i < end; ++i)
      for (const ScratchValue& v : recorded[i].scratch) {
        auto it = std::find_if(out.scratch.begin(), out.scratch.end(),
                               [&](const ScratchValue& o) { return o.name == v.name; });
        if (it == out.scratch.end())
          out.scratch.push_back(v);
        else
          it->bytes = std::max(it->bytes, v.bytes);
      }
    if (!same_layout(recorded[start], recorded.front()) &&
        (base.checks.size() != out.checks.size() || base.copies != out.copies ||
         base.rope_tables.size() != out.rope_tables.size()))
      gap("whose Vulkan backend kernel does other host work at another length");
    info.segments.push_back(seg);
    start = end;
  }
  // gather's index check: the same at every length (its axis not the growing one)
  for (const KernelShader& r : recorded)
    for (size_t c = 0; c < r.checks.size(); ++c)
      if (r.checks.size() != out.checks.size() || r.checks[c].bound != out.checks[c].bound ||
          r.checks[c].count != out.checks[c].count || r.checks[c].value != out.checks[c].value)
        gap("whose Vulkan backend kernel checks indices against its length");
  // rope's cos/sin tables: the same at every length but for their rows T and pairs D / 2, forms
  // of L the host program sizes the table by (its scratch value allocated at its largest above).
  for (size_t t = 0; t < out.rope_tables.size(); ++t) {
    std::vector<std::pair<int64_t, int64_t>> rows, dims;
    bool vary_rows = false, vary_dims = false;
    for (size_t i = 0; i < recorded.size(); ++i) {
      const RopeTable &r = recorded[i].rope_tables.at(t), &o = out.rope_tables[t];
      if (r.pos != o.pos || r.wide != o.wide || r.theta != o.theta || r.f64 != o.f64 ||
          r.table != o.table || r.theta_index != o.theta_index)
        gap("whose Vulkan backend kernel computes rope's table otherwise at another length");
      vary_rows = vary_rows || r.T != o.T;
      vary_dims = vary_dims || r.D != o.D;
      rows.emplace_back(static_cast<int64_t>(lengths[i]), static_cast<int64_t>(r.T));
      dims.emplace_back(static_cast<int64_t>(lengths[i]), static_cast<int64_t>(r.D));
    }
    auto form = [&](bool varies, const auto& pts, auto& into) {
      if (!varies) return;
      auto f = fit(pts);
      if (!f) gap("whose rope table's rows or depth follow no form of its length");
      into = *f;
    };
    form(vary_rows, rows, out.rope_tables[t].T_length);
    form(vary_dims, dims, out.rope_tables[t].D_length);
  }
  out.length = std::move(info);
  return out;
}

}  // namespace oi::glsl
