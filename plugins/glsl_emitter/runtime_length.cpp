// Kernels of run-time length through forms of the length (runtime_length.hpp).
#include "runtime_length.hpp"

#include <algorithm>
#include <set>

#include "openinfer/broadcast.hpp"
#include "refusal.hpp"
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
                                                       std::string& why) {
  const std::string& rule = op.shape_rule;
  if (in.empty()) {
    why = "op '" + op.op + "' without inputs";
    return std::nullopt;
  }
  if (rule == "broadcast") {
    std::vector<uint64_t> out = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      if (!op.broadcast) {
        if (in[i] != out) {
          why = "input shapes " + dims_text(out) + " and " + dims_text(in[i]) + " differ";
          return std::nullopt;
        }
        continue;
      }
      auto b = geometry::broadcast_shape(out, in[i]);
      if (!b) {
        why = "input shapes " + dims_text(out) + " and " + dims_text(in[i]) + " do not broadcast";
        return std::nullopt;
      }
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
      if (!n) {
        why = "axis " + std::to_string(a) + " out of range";
        return std::nullopt;
      }
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
  if (rule == "matmul" && in.size() == 2) {
    const std::vector<uint64_t>&a = in[0], &b = in[1];
    if (a.size() < 2 || b.size() < 2 || a[a.size() - 1] != b[b.size() - 2]) {
      why = "matmul of " + dims_text(a) + " and " + dims_text(b);
      return std::nullopt;
    }
    auto batch = geometry::broadcast_shape(std::vector<uint64_t>(a.begin(), a.end() - 2),
                                           std::vector<uint64_t>(b.begin(), b.end() - 2));
    if (!batch) {
      why = "matmul batch dimensions of " + dims_text(a) + " and " + dims_text(b);
      return std::nullopt;
    }
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
  const std::string where = op_where(op) + ": operand '" + ro.matrix + "', an @auto_dim matrix ";
  auto gap = [&](const std::string& what) { glsl_gap("auto-dim-operand", where + what); };
  PlanIn p = plan;
  auto set_shape = [&](const std::string& name, const std::vector<uint64_t>& shape) {
    ValueIn& v = p.values.at(p.value_index.at(name));
    v.shape = shape;
    v.elements = 1;
    for (uint64_t d : shape) v.elements *= d;
    v.bytes = ro.matrix_elements
                  ? (v.elements * ro.matrix_bytes + ro.matrix_elements - 1) / ro.matrix_elements
                  : 0;
  };
  std::set<std::string> runtime(ro.inputs.begin(), ro.inputs.end());
  const ValueIn& first = plan.value(ro.inputs.front());
  std::vector<uint64_t> declared = first.shape;
  std::vector<KernelShader> recorded;
  std::vector<std::vector<uint64_t>> results;
  for (uint64_t L = ro.lo; L <= ro.hi; ++L) {
    std::vector<uint64_t> shape = declared;
    shape[ro.axis] = L;
    for (const std::string& s : ro.inputs) set_shape(s, shape);
    std::vector<std::vector<uint64_t>> in;
    for (const std::string& t : op.inputs) {
      const ValueRef r = parse_ref(t);
      if (!r.index.empty() || r.all) gap("beside another operand '" + t + "' of a table");
      in.push_back(p.value(r.name).shape);
    }
    std::string why;
    std::optional<std::vector<uint64_t>> result = rule_result_shape(op, in, why);
    if (!result)
      gap("whose length " + std::to_string(L) + " along axis " + std::to_string(ro.axis) +
          " gives no result (" + why + ")");
    if (!ro.output.empty()) {
      if (result->size() != p.value(ro.output).shape.size())
        gap("whose result has another rank than the matrix it is stored into");
      set_shape(ro.output, *result);
    } else if (*result != p.value(parse_ref(op.output).name).shape) {
      gap("of length " + std::to_string(L) + " along axis " + std::to_string(ro.axis) +
          ", whose result " + dims_text(*result) + " is not output '" + op.output + "''s shape");
    }
    results.push_back(*result);
    try {
      recorded.push_back(record_kernel(p, device, k));
    } catch (const std::exception& e) {
      gap("that the Vulkan backend's kernel cannot be recorded for at length " +
          std::to_string(L) + " (" + e.what() + ")");
    }
  }
  for (const std::string& s : ro.inputs) {
    std::vector<uint64_t> shape = declared;
    shape[ro.axis] = ro.hi;
    capacity.emplace_back(s, shape);
  }
  if (!ro.output.empty()) capacity.emplace_back(ro.output, results.back());

  RuntimeLengthKernel info;
  info.value = ro.inputs.front();
  info.axis = ro.axis;
  info.lo = ro.lo;
  info.hi = ro.hi;
  info.matrix = ro.matrix;
  info.at = op.at;
  // The result's axes as forms of L.
  if (!ro.output.empty())
    for (size_t a = 0; a < results.front().size(); ++a) {
      std::vector<std::pair<int64_t, int64_t>> pts;
      for (size_t i = 0; i < results.size(); ++i)
        pts.emplace_back(static_cast<int64_t>(ro.lo + i), static_cast<int64_t>(results[i][a]));
      auto f = fit(pts);
      if (!f) gap("whose result's axis " + std::to_string(a) + " follows no form of its length");
      info.shapes.push_back({ro.output, a, (*f)[0], (*f)[1], (*f)[2]});
    }
  KernelShader out = recorded.front();
  out.dispatches.clear();
  // Segments: the longest runs of lengths recorded with one layout.
  size_t start = 0;
  while (start < recorded.size()) {
    size_t end = start + 1;
    while (end < recorded.size() && same_layout(recorded[start], recorded[end])) ++end;
    if (info.segments.size() == 8)
      gap("whose kernel the Vulkan backend records with more than 8 layouts over lengths " +
          std::to_string(ro.lo) + ".." + std::to_string(ro.hi));
    const KernelShader& base = recorded[start];
    LengthSegment seg{ro.lo + start, ro.lo + end - 1, out.dispatches.size(),
                      base.dispatches.size()};
    for (size_t d = 0; d < base.dispatches.size(); ++d) {
      for (size_t slot = 0; slot < 3 + base.dispatches[d].params.size(); ++slot) {
        auto word = [&](const KernelShader& r) -> int64_t {
          const VulkanDispatch& x = r.dispatches[d];
          return slot < 3 ? x.groups[slot] : x.params[slot - 3];
        };
        bool varies = false;
        std::vector<std::pair<int64_t, int64_t>> pts;
        for (size_t i = start; i < end; ++i) {
          varies = varies || word(recorded[i]) != word(base);
          pts.emplace_back(static_cast<int64_t>(ro.lo + i), word(recorded[i]));
        }
        if (!varies) continue;
        auto f = fit(pts);
        if (!f)
          gap("whose Vulkan backend kernel takes its length into " +
              (slot < 3 ? "workgroup count " + std::to_string(slot)
                        : "params word " + std::to_string(slot - 3)) +
              " of dispatch " + std::to_string(d) + " in no form floor((a L + b) / c)");
        info.forms.push_back({seg.first + d, slot, (*f)[0], (*f)[1], (*f)[2]});
      }
      out.dispatches.push_back(base.dispatches[d]);
    }
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
  if (!out.checks.empty() || !out.rope_tables.empty())
    gap("whose Vulkan backend kernel does host work (index checks, rope tables) sized by it");
  out.length = std::move(info);
  return out;
}

}  // namespace oi::glsl
