// @auto_dim matrices as op operands through scratch values and copies (auto_dim_operands.hpp).
#include "auto_dim_operands.hpp"
#include "runtime_length.hpp"

#include <algorithm>
#include <set>

#include "auto_dim_guard.hpp"
#include "runtime_access.hpp"
#include "vulkan_kernels.hpp"
#include "window_outputs.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

bool is_slice(const std::string& term) {
  return term.find("..") != std::string::npos;
}

const ValueIn* matrix_of(const PlanIn& plan, const std::string& text) {
  auto it = plan.value_index.find(parse_ref(text).name);
  if (it == plan.value_index.end() || !plan.values[it->second].is_auto_dim()) return nullptr;
  return &plan.values[it->second];
}

// Every use of a matrix in the plan: the kernels' operands and the steps' copies and resets.
void collect_steps(const json::array& steps, std::vector<std::string>& out) {
  for (const json::value& sv : steps) {
    const json::object* s = sv.if_object();
    if (!s) continue;
    for (const char* key : {"from", "to", "target"})
      if (const json::value* v = s->if_contains(key); v && v->is_string())
        out.emplace_back(v->as_string());
    if (const json::value* body = s->if_contains("body"); body && body->is_array())
      collect_steps(body->as_array(), out);
  }
}

// Every use of a value in the plan as written: the kernels' operands, the steps' copies.
std::vector<std::string> all_uses(const PlanIn& plan) {
  std::vector<std::string> uses;
  for (const KernelIn& k : plan.kernels)
    for (const OpIn& op : k.ops) {
      uses.insert(uses.end(), op.inputs.begin(), op.inputs.end());
      uses.push_back(op.output);
    }
  for (const json::value& b : plan.blocks)
    if (const json::object* o = b.if_object();
        o && o->contains("steps") && o->at("steps").is_array())
      collect_steps(o->at("steps").as_array(), uses);
  return uses;
}

}  // namespace

// (dsl.md: `M[r, c]` grows the counts to at least r and c)
GrowingMatrices growing_matrices(const PlanIn& plan) {
  std::map<std::string, std::string> out;
  for (const std::string& u : all_uses(plan)) {
    const ValueIn* m = matrix_of(plan, u);
    const ValueRef r = parse_ref(u);
    if (!m || r.index.size() <= m->auto_table.size()) continue;
    const auto first = r.index.begin() + static_cast<std::ptrdiff_t>(m->auto_table.size());
    if (std::any_of(first, r.index.end(), is_slice)) continue;
    if (std::any_of(first, r.index.end(), [](const std::string& t) { return t != "0"; }))
      out.emplace(m->name, u);
  }
  return out;
}

std::set<size_t> growing_axes(const PlanIn& plan, const ValueIn& m) {
  std::set<size_t> axes;
  for (const std::string& u : all_uses(plan)) {
    const ValueRef r = parse_ref(u);
    if (r.name != m.name || r.index.size() != m.auto_table.size() + m.auto_indices.size()) continue;
    for (size_t a = 0; a < m.auto_indices.size(); ++a) {
      const std::string& t = r.index[m.auto_table.size() + a];
      if (!is_slice(t) && t != "0") axes.insert(a);
    }
  }
  return axes;
}

namespace {

// Op `op` (kernel k) reading whole matrix `m` (as `text`) of run-time length: the kernel's
// RuntimeOperand, made or checked; false with `why` where it cannot be one.
bool runtime_input(const PlanIn& plan, const KernelIn& k, const OpIn& op, const ValueIn& m,
                   const std::string& text, const std::set<size_t>& axes,
                   std::map<uint32_t, RuntimeOperand>& runtime, std::string& why) {
  // (split_fused.hpp gives an op with such an operand a kernel of its own)
  if (k.ops.size() != 1)
    invalid_plan(op_where(op) + ": a matrix of run-time length in kernel " + std::to_string(k.id) +
                 " of several ops");
  // a table's matrices: one key's (every @table index a scalar; stacked ones have their
  // count on a leading axis)
  auto one_key = [](const ValueIn& v, const ValueRef& r) {
    return r.index.size() == v.auto_table.size() + v.auto_indices.size() &&
           std::none_of(r.index.begin(),
                        r.index.begin() + static_cast<std::ptrdiff_t>(v.auto_table.size()),
                        is_slice);
  };
  if (!m.auto_table.empty() && !one_key(m, parse_ref(text))) {
    why += ", the matrices of several keys of a table";
    return false;
  }
  if (axes.size() != 1) {
    why += ", which grows along " + std::to_string(axes.size()) + " axes";
    return false;
  }
  const size_t axis = *axes.begin();
  const ValueRef out = parse_ref(op.output);
  const auto oit = plan.value_index.find(out.name);
  if (oit == plan.value_index.end()) invalid_plan(op_where(op) + ": unknown output");
  const ValueIn& o = plan.values[oit->second];
  // a plain value, a matrix (whole, grown or a part; of a table, one key's) or table entries (an
  // entry or a window, each index given)
  const bool plain = out.index.empty() && !out.all && !o.is_table() && !o.is_auto_dim();
  const bool matrix = o.is_auto_dim() && !out.all && (o.auto_table.empty() || one_key(o, out));
  const bool entries =
      o.is_table() && !o.is_auto_dim() && !out.all && out.index.size() == o.indices.size();
  if (!plain && !matrix && !entries) {
    why += ", into an output '" + op.output +
           "' that is neither a plain value, a matrix nor table entries";
    return false;
  }
  for (const std::string& in : op.inputs) {
    const ValueRef r = parse_ref(in);
    const auto it = plan.value_index.find(r.name);
    if (it == plan.value_index.end()) continue;
    const ValueIn& v = plan.values[it->second];
    if (v.name == m.name && in == op.inputs.front()) continue;
    if (v.is_auto_dim() && v.name == m.name) continue;
    // another whole matrix growing along the same axis from the same declared size: of the
    // same length L, which the host program checks (runtime_access.hpp)
    if (v.is_auto_dim() && (v.auto_table.empty() || one_key(v, r)) &&
        std::none_of(r.index.begin(), r.index.end(), is_slice) && growing_axes(plan, v) == axes &&
        v.shape.size() > axis && v.shape[axis] == m.shape[axis])
      continue;
    const bool entry = v.is_table() && !r.all && r.index.size() == v.indices.size() &&
                       std::none_of(r.index.begin(), r.index.end(), is_slice);
    if (v.is_auto_dim() || (v.is_table() && !entry) ||
        (!v.is_table() && (!r.index.empty() || r.all))) {
      why += ", beside another operand '" + in + "' that is not a plain value or a table entry";
      return false;
    }
  }
  auto [it, fresh] = runtime.try_emplace(k.id);
  RuntimeOperand& ro = it->second;
  if (!fresh && (ro.axis != axis || ro.lo != m.shape.at(axis))) {
    why += ", beside another matrix of run-time length along another axis or from another size";
    return false;
  }
  const uint64_t declared = m.shape.at(axis);
  const uint64_t row = m.shape.at(axis) && m.elements ? m.bytes / declared : m.bytes;
  uint64_t hi = m.auto_bound.size() > axis && m.auto_bound[axis] ? declared + m.auto_bound[axis]
                                                                 : declared + kRuntimeLengthCap;
  if (row) hi = std::min(hi, std::max(declared + 1, kRuntimeBytesCap / row));
  if (fresh) ro.matrix = m.name;
  ro.at = op.at;
  ro.access = output_access(op, matrix, entries);
  ro.axis = axis;
  ro.lo = declared;
  ro.hi = fresh ? std::max(hi, declared) : std::min(ro.hi, std::max(hi, declared));
  return true;
}

}  // namespace

std::optional<std::vector<uint64_t>> matrix_access_shape(const PlanIn& plan, const ValueIn& m,
                                                         const std::string& text, bool read,
                                                         const GrowingMatrices& growing,
                                                         std::string& why) {
  const ValueRef r = parse_ref(text);
  const size_t nt = m.auto_table.size(), na = m.auto_indices.size();
  if (r.index.empty() ? nt > 0 : r.index.size() != nt + na) {
    why = "'" + text + "' of @auto_dim table '" + m.name +
          "' without an index per slot (every matrix stacked: their count is known only at run "
          "time)";
    return std::nullopt;
  }
  std::vector<uint64_t> shape;
  bool known = true;
  auto length = [&](const std::string& term) -> uint64_t {
    const std::optional<int64_t> n = window_length(plan, term);
    if (!n) {
      why = "'" + text + "', a part '" + term + "' whose length is known only at run time";
      known = false;
      return 0;
    }
    if (*n < 0) invalid_plan("empty part '" + term + "' of '" + text + "'");
    return static_cast<uint64_t>(*n);
  };
  for (size_t t = 0; t < nt; ++t)
    if (is_slice(r.index[t])) shape.push_back(length(r.index[t]));
  const bool part =
      std::any_of(r.index.begin() + static_cast<std::ptrdiff_t>(nt), r.index.end(), is_slice);
  if (!part) {
    if (auto g = growing.find(m.name); read && g != growing.end()) {
      why = "'" + text + "', the whole of @auto_dim matrix '" + m.name + "', which '" + g->second +
            "' grows: its shape is known only at run time";
      return std::nullopt;
    }
    shape.insert(shape.end(), m.shape.begin(), m.shape.end());
  } else {
    // an open end on an axis no access grows: up to the declared size (slices never grow)
    auto open_end = [&](size_t a, const std::string& t) -> std::optional<uint64_t> {
      const size_t dots = t.find("..");
      if (dots + 2 != t.size() || growing_axes(plan, m).count(a)) return std::nullopt;
      const std::string from = t.substr(0, dots);
      const auto s = from.empty() ? std::optional<int64_t>(0) : window_length(plan, "0.." + from);
      if (!s || *s < 0 || *s > static_cast<int64_t>(m.shape[a])) return std::nullopt;
      return m.shape[a] - static_cast<uint64_t>(*s);
    };
    for (size_t a = 0; a < na; ++a) {
      const std::string& t = r.index[nt + a];
      const std::optional<uint64_t> open = is_slice(t) ? open_end(a, t) : std::nullopt;
      shape.push_back(open ? *open : is_slice(t) ? length(t) : 1);
    }
    shape.insert(shape.end(), m.shape.begin() + static_cast<std::ptrdiff_t>(na), m.shape.end());
  }
  if (!known) return std::nullopt;
  return shape;
}

OperandCopies route_auto_dim_operands(PlanIn& plan, const GrowingMatrices& growing,
                                      OperandCopies copies) {
  std::map<std::string, std::set<size_t>> axes;  // before the operands are rewritten
  for (const ValueIn& v : plan.values)
    if (v.is_auto_dim()) axes[v.name] = growing_axes(plan, v);
  for (KernelIn& k : plan.kernels) {
    bool changed = false;
    for (size_t i = 0; i < k.ops.size(); ++i) {
      OpIn& op = k.ops[i];
      auto scratch = [&](const ValueIn& m, const std::string& suffix, std::vector<uint64_t> shape) {
        ValueIn s;
        s.name = "@ad" + std::to_string(k.id) + "_" + suffix;
        s.storage = "scratch";
        s.dtype = m.dtype;
        s.shape = std::move(shape);
        for (uint64_t d : s.shape) s.elements *= d;
        s.bytes = m.elements ? (s.elements * m.bytes + m.elements - 1) / m.elements : 0;
        plan.value_index[s.name] = plan.values.size();
        plan.values.push_back(std::move(s));
        return plan.values.back().name;
      };
      auto terms = [](const std::string& text) {
        const ValueRef r = parse_ref(text);
        return json::array(r.index.begin(), r.index.end());
      };
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        const ValueIn* m = matrix_of(plan, op.inputs[j]);
        if (!m) continue;
        const ValueIn matrix = *m;  // a copy: plan.values grows below
        const std::string at = j < op.inputs_at.size() ? op.inputs_at[j] : std::string();
        // A whole matrix that grows: its declared shape where the op's static output pins it
        // (auto_dim_guard.hpp), the copy then stopping at another shape with the simulator's
        // error.
        std::string why;
        std::optional<std::vector<uint64_t>> shape =
            matrix_access_shape(plan, matrix, op.inputs[j], true, growing, why);
        std::optional<json::object> guard;
        bool runtime = false;
        if (!shape) {
          std::string unused;
          shape = matrix_access_shape(plan, matrix, op.inputs[j], false, growing, unused);
          if (shape && shape->size() == matrix.shape.size())
            guard = runtime_operand_guard(plan, k, op, j, *shape, matrix.auto_indices.size(), why);
          // else a kernel of run-time length (runtime_length.hpp)
          if (!guard && shape && shape->size() == matrix.shape.size())
            runtime = runtime_input(plan, k, op, matrix, op.inputs[j], axes[matrix.name],
                                    copies.runtime, why);
          if (!guard && !runtime) glsl_gap("auto-dim-operand", op_where(op) + ": operand " + why);
        }
        const std::string name =
            scratch(matrix, std::to_string(i) + "_" + std::to_string(j), *shape);
        if (runtime) {
          plan.values[plan.value_index.at(name)].runtime_axis =
              static_cast<int>(copies.runtime.at(k.id).axis);
          copies.runtime.at(k.id).inputs.push_back(name);
        }
        json::object copy{{"op", "copy"}, {"from", matrix.name},
                          {"to", name},   {"auto_from", terms(op.inputs[j])},
                          {"at", at},     {"store_at", at}};
        if (guard) {
          copy["exact"] = true;
          copy["guard"] = std::move(*guard);
        }
        if (runtime) copy["exact"] = true;
        copies.before[k.id].push_back(std::move(copy));
        op.inputs[j] = name;
        if (j < op.inputs_at.size()) op.inputs_at[j].clear();
        k.reads.push_back(name);
        changed = true;
      }
      if (const ValueIn* m = matrix_of(plan, op.output)) {
        const ValueIn matrix = *m;
        // The part's shape, or the declared one for the whole matrix: a grown matrix then
        // differs from the op's result, and storing it fails as in the simulator. A part of
        // run-time length takes the result's shape where an elementwise op alone in its kernel
        // gives it (every axis of the part: the sliced @table indices', then the matrix's), and
        // the copy stores it as cache.write does, checking the part's shape at run time.
        std::string why;
        std::optional<std::vector<uint64_t>> part =
            matrix_access_shape(plan, matrix, op.output, false, growing, why);
        const ValueRef r = parse_ref(op.output);
        const bool broadcasts = op.shape_rule == "broadcast" && op.broadcast;
        if (!part && k.kind == "elementwise" &&
            r.index.size() == matrix.auto_table.size() + matrix.auto_indices.size()) {
          size_t rank = matrix.shape.size();
          for (size_t t = 0; t < matrix.auto_table.size() && t < r.index.size(); ++t)
            rank += is_slice(r.index[t]) ? 1 : 0;
          part = op_result_shape(plan, k, op, 0);
          // a result of lower rank spread over the part where the op broadcasts (dsl.md)
          if (part && (part->size() > rank || (part->size() < rank && !broadcasts))) part.reset();
        }
        // A kernel of run-time length: the result's shape follows the length.
        const bool runtime = copies.runtime.count(k.id) > 0;
        if (runtime) {
          std::vector<std::vector<uint64_t>> in;
          for (const std::string& t : op.inputs) in.push_back(plan.value(parse_ref(t).name).shape);
          part = recorded_result_shape(op, in, nullptr, why);
        }
        if (!part) glsl_gap("auto-dim-operand", op_where(op) + ": operand " + why);
        std::vector<uint64_t> shape = *part;
        if (k.ops.size() == 1) k.shape = shape;
        const std::string name = scratch(matrix, std::to_string(i) + "_out", shape);
        if (runtime) {
          plan.values[plan.value_index.at(name)].runtime_axis = -2;
          copies.runtime.at(k.id).output = name;
        }
        json::object copy{{"op", "copy"},       {"from", name},
                          {"to", matrix.name},  {"auto_to", terms(op.output)},
                          {"at", op.output_at}, {"store_at", op.output_at}};
        // a result that broadcasts to the part or the grown matrix fills it, as the simulator
        // stores it (interpreter_op.cpp)
        if (broadcasts) copy["spread"] = true;
        copies.after[k.id].push_back(std::move(copy));
        op.output = name;
        op.output_at.clear();
        k.writes.push_back(name);
        changed = true;
      } else if (auto rt = copies.runtime.find(k.id); rt != copies.runtime.end()) {
        // A kernel of run-time length writing table entries: its result (a scratch value of the
        // shape the length gives) stored as the simulator stores it (the host's spread_copy:
        // filling the access where it broadcasts to it, else the store's error).
        const ValueRef r = parse_ref(op.output);
        const auto it = plan.value_index.find(r.name);
        if (it != plan.value_index.end() && plan.values[it->second].is_table()) {
          const ValueIn table = plan.values[it->second];
          std::vector<std::vector<uint64_t>> in;
          for (const std::string& t : op.inputs) in.push_back(plan.value(parse_ref(t).name).shape);
          std::string why;
          const std::optional<std::vector<uint64_t>> result =
              recorded_result_shape(op, in, nullptr, why);
          if (!result) glsl_gap("auto-dim-operand", op_where(op) + ": " + why);
          ValueIn s;
          s.name = "@ad" + std::to_string(k.id) + "_" + std::to_string(i) + "_out";
          s.storage = "scratch";
          s.dtype = table.dtype;
          s.shape = *result;
          for (uint64_t d : s.shape) s.elements *= d;
          s.bytes = dtype_bytes(s.dtype, s.elements);
          s.runtime_axis = -2;
          plan.value_index[s.name] = plan.values.size();
          plan.values.push_back(s);
          rt->second.output = s.name;
          json::object c{{"op", "copy"},
                         {"from", s.name},
                         {"to", table.name},
                         {"to_entry", json::array(r.index.begin(), r.index.end())},
                         {"spread", true}};
          if (!op.output_at.empty()) c["at"] = op.output_at;
          copies.after[k.id].push_back(std::move(c));
          op.output = s.name;
          op.output_at.clear();
          k.writes.push_back(s.name);
          changed = true;
        }
      }
    }
    if (!changed) continue;
    drop_unnamed(k);  // a matrix its ops no longer name
  }
  return copies;
}

}  // namespace oi::glsl
