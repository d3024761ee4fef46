// Windows of table entries as op inputs through scratch values and copies
// (table_window_inputs.hpp).
#include "table_window_inputs.hpp"

#include <algorithm>

#include "runtime_access.hpp"
#include "runtime_length.hpp"
#include "vulkan_kernels.hpp"
#include "window_outputs.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

bool is_slice(const std::string& term) {
  return term.find("..") != std::string::npos;
}

// A table access with a window: a slice among its terms, `T[]`, or fewer terms than indices.
bool is_window(const ValueIn& v, const ValueRef& r) {
  return v.is_table() && (r.all || r.index.size() < v.indices.size() ||
                          std::any_of(r.index.begin(), r.index.end(), is_slice));
}

const ValueIn* table_of(const PlanIn& plan, const ValueRef& r) {
  auto it = plan.value_index.find(r.name);
  return it == plan.value_index.end() ? nullptr : &plan.values[it->second];
}

// The window of input `text` of table v: its terms (missing trailing ones as whole axes, as
// the host program's copies take them), its shape with the run-time axis at length 1, and
// that axis (among the window's axes; -1: every length static).
struct Window {
  std::vector<std::string> terms;
  std::vector<uint64_t> shape;
  int runtime_axis = -1;
  size_t runtime_index = 0;  // the table index of that axis
  std::string runtime_term;
  size_t runtime_count = 0;  // how many axes are of run-time length
};

Window window_of(const PlanIn& plan, const OpIn& op, const ValueIn& v, const ValueRef& r,
                 const std::string& text) {
  Window w;
  w.terms = r.index;
  if (w.terms.size() > v.indices.size())
    invalid_plan(op_where(op) + ": '" + text + "' gives more indices than table '" + v.name +
                 "' has");
  for (size_t i = w.terms.size(); i < v.indices.size(); ++i)
    w.terms.push_back(v.bound[i] ? "0.." + std::to_string(v.bound[i]) : "0..");
  for (size_t i = 0; i < w.terms.size(); ++i) {
    const std::string& t = w.terms[i];
    if (!is_slice(t)) continue;
    const std::optional<int64_t> n = window_length(plan, t);
    if (n && *n < 0) invalid_plan(op_where(op) + ": empty window '" + t + "' of '" + text + "'");
    if (!n) {
      if (w.runtime_count++ == 0) {
        w.runtime_axis = static_cast<int>(w.shape.size());
        w.runtime_index = i;
        w.runtime_term = t;
      }
    }
    w.shape.push_back(n ? static_cast<uint64_t>(*n) : 1);
  }
  w.shape.insert(w.shape.end(), v.shape.begin(), v.shape.end());
  return w;
}

// Whether op `op` of kernel k can be a kernel of run-time length reading window `text`; else
// the gap's words. `access`: its output access, as acc= checks it (runtime_access.hpp).
std::string runtime_refusal(const PlanIn& plan, const KernelIn& k, const OpIn& op, const Window& w,
                            json::object& access) {
  if (w.runtime_count > 1) return std::to_string(w.runtime_count) + " axes of run-time length";
  // (split_fused.hpp gives an op with such an operand a kernel of its own)
  if (k.ops.size() != 1)
    invalid_plan(op_where(op) + ": a window of run-time length in kernel " + std::to_string(k.id) +
                 " of several ops");
  for (const auto& kv : op.settings)
    if (kv.value().is_object())
      return "read by an op whose setting '" + std::string(kv.key()) + "' names a loop index";
  const ValueRef out = parse_ref(op.output);
  const ValueIn* o = table_of(plan, out);
  if (!o) invalid_plan(op_where(op) + ": unknown output '" + op.output + "'");
  auto scalar_keys = [&](size_t n) {
    return out.index.size() >= n &&
           std::none_of(out.index.begin(), out.index.begin() + static_cast<std::ptrdiff_t>(n),
                        is_slice);
  };
  const bool plain = out.index.empty() && !out.all && !o->is_table() && !o->is_auto_dim();
  const bool matrix = o->is_auto_dim() && !out.all &&
                      (o->auto_table.empty() ||
                       (out.index.size() == o->auto_table.size() + o->auto_indices.size() &&
                        scalar_keys(o->auto_table.size())));
  const bool entries =
      o->is_table() && !o->is_auto_dim() && !out.all && out.index.size() == o->indices.size();
  if (!plain && !matrix && !entries)
    return "into an output '" + op.output +
           "' that is neither a plain value, a matrix of one key nor table entries of one key";
  access = output_access(op, matrix, entries);
  return {};
}

}  // namespace

void route_table_window_inputs(PlanIn& plan, OperandCopies& copies) {
  for (KernelIn& k : plan.kernels) {
    bool changed = false;
    for (size_t i = 0; i < k.ops.size(); ++i) {
      OpIn& op = k.ops[i];
      std::string runtime_text;  // the one window of run-time length the kernel reads
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        const std::string text = op.inputs[j];
        const ValueRef r = parse_ref(text);
        const ValueIn* found = table_of(plan, r);
        if (!found || found->is_auto_dim() || !is_window(*found, r)) continue;
        const ValueIn table = *found;  // a copy: plan.values grows below
        if (table.storage == "internal")
          invalid_plan(op_where(op) + ": '" + text + "' has no memory");
        const std::string at = j < op.inputs_at.size() ? op.inputs_at[j] : std::string();
        const Window w = window_of(plan, op, table, r, text);
        const std::string where = op_where(op) + ": input '" + text + "', a window of table '" +
                                  table.name + "' whose length '" + w.runtime_term +
                                  "' is known only at run time, ";
        json::object access;
        if (w.runtime_axis >= 0) {
          if (std::string why = runtime_refusal(plan, k, op, w, access); !why.empty())
            glsl_gap("table-window-operand", where + why);
          if (!runtime_text.empty() && runtime_text != text)
            glsl_gap("table-window-operand", where + "beside another one, '" + runtime_text + "'");
          runtime_text = text;
        }
        ValueIn s;
        s.name = "@tw" + std::to_string(k.id) + "_" + std::to_string(i) + "_" + std::to_string(j);
        s.storage = "scratch";
        s.dtype = table.dtype;
        s.shape = w.shape;
        for (uint64_t d : s.shape) s.elements *= d;
        s.bytes = dtype_bytes(s.dtype, s.elements);
        json::object copy{{"op", "copy"},
                          {"from", table.name},
                          {"to", s.name},
                          {"from_entry", json::array(w.terms.begin(), w.terms.end())}};
        if (!at.empty()) copy["at"] = at;
        // entries of a packed dtype padded to whole bytes each, the value packing the elements
        // one after another: the host program moves the elements (output_writer.cpp's
        // entry_copy)
        if (dtype_bytes(table.dtype, table.elements * 8) != table.entry_bytes * 8)
          copy["repack"] = true;
        if (w.runtime_axis >= 0) {
          s.runtime_axis = w.runtime_axis;
          RuntimeOperand& ro = copies.runtime[k.id];
          uint64_t row = std::max<uint64_t>(table.entry_bytes, 1);  // bytes of one step along it
          for (size_t a = 0; a + table.shape.size() < w.shape.size(); ++a)
            if (static_cast<int>(a) != w.runtime_axis) row *= w.shape[a];
          const uint64_t bound = table.bound[w.runtime_index];
          ro.matrix = table.name;
          ro.kind = "a window of table '" + table.name + "' (" + text + ")";
          ro.table_window = true;
          ro.at = op.at;
          ro.access = std::move(access);
          ro.axis = static_cast<size_t>(w.runtime_axis);
          ro.lo = 0;
          ro.hi = bound
                      ? bound
                      : std::min(kRuntimeLengthCap, std::max<uint64_t>(1, kRuntimeBytesCap / row));
          ro.inputs.push_back(s.name);
        }
        plan.value_index[s.name] = plan.values.size();
        plan.values.push_back(std::move(s));
        copies.before[k.id].push_back(std::move(copy));
        op.inputs[j] = plan.values.back().name;
        if (j < op.inputs_at.size()) op.inputs_at[j].clear();
        k.reads.push_back(plan.values.back().name);
        changed = true;
      }
    }
    if (changed) drop_unnamed(k);  // a table its ops no longer name
  }
}

}  // namespace oi::glsl
