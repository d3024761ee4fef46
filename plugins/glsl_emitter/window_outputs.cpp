// Window outputs through scratch values and copies (window_outputs.hpp).
#include "window_outputs.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "auto_dim_guard.hpp"
#include "openinfer/broadcast.hpp"
#include "runtime_length.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

// An index term's integer value where it is static: an integer or a size variable.
std::optional<int64_t> static_term(const PlanIn& plan, const std::string& t) {
  if (auto it = plan.sizevars.find(t); it != plan.sizevars.end())
    return static_cast<int64_t>(it->second);
  if (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos) return std::stoll(t);
  return std::nullopt;
}

// Op `op` of kernel k writes scratch value `s` instead of its window; copy `c` (run after the
// kernel) stores it into the table.
void route_to_scratch(PlanIn& plan, KernelIn& k, OpIn& op, ValueIn s, json::object c,
                      std::map<uint32_t, std::vector<json::object>>& copies) {
  copies[k.id].push_back(std::move(c));
  if (k.ops.size() == 1) k.shape = s.shape;
  op.output = s.name;
  op.output_at.clear();
  plan.value_index[s.name] = plan.values.size();
  plan.values.push_back(std::move(s));
  k.writes.push_back(plan.values.back().name);
}

}  // namespace

std::optional<std::vector<uint64_t>> op_result_shape(const PlanIn& plan, const KernelIn& k,
                                                     const OpIn& op, size_t entry_rank, bool acc) {
  // (acc= runs the kernel over the output access, which a scratch value of the result's shape
  // is not, but where the copy checks that the access has that shape or broadcasts it: acc)
  if (k.ops.empty() || &k.ops.front() != &op) return std::nullopt;
  const bool with_acc = op.settings.contains("acc");
  if (with_acc && !(acc && k.ops.size() == 1)) return std::nullopt;
  if (k.kind != "elementwise") {
    if (k.ops.size() != 1) return std::nullopt;
    // (with acc= the planner gives the kernel the output's shape, not the result's: the rule's)
    if (k.shape.size() > entry_rank && !with_acc) return k.shape;
    // the planner's table_result_shape (build_schedule.cpp) gave the kernel the result's shape
    bool planned = !op.named_settings && !with_acc;
    std::vector<std::vector<uint64_t>> shapes;  // else the catalog rule's, from static shapes
    for (const std::string& in : op.inputs) {
      const ValueRef r = parse_ref(in);
      auto it = plan.value_index.find(r.name);
      if (r.all || it == plan.value_index.end()) return std::nullopt;
      const ValueIn& v = plan.values[it->second];
      planned = planned && r.index.empty() && !v.is_table() && v.storage != "scratch";
      // a whole value, a table entry (every index a scalar) or a scratch value of static shape
      // (a table window of static length, a matrix's part, table_window_inputs.hpp)
      const bool entry = v.is_table() && r.index.size() == v.indices.size() &&
                         std::none_of(r.index.begin(), r.index.end(), [](const std::string& t) {
                           return t.find("..") != std::string::npos;
                         });
      if (v.is_auto_dim() || v.runtime_axis != -1 || (!entry && !r.index.empty()))
        return std::nullopt;
      shapes.push_back(v.shape);
    }
    if (planned) return k.shape;
    for (const auto& kv : op.settings)  // a loop index's value is known only at run time
      if (kv.value().is_object()) return std::nullopt;
    std::string why;
    return rule_result_shape(op, shapes, why);
  }
  if (op.inputs.empty()) return std::nullopt;
  std::vector<uint64_t> out;
  for (const std::string& in : op.inputs) {
    const ValueRef r = parse_ref(in);
    if (r.all || std::any_of(r.index.begin(), r.index.end(), [](const std::string& t) {
          return t.find("..") != std::string::npos;
        }))
      return std::nullopt;
    auto it = plan.value_index.find(r.name);
    if (it == plan.value_index.end()) return std::nullopt;
    const ValueIn& v = plan.values[it->second];
    if (v.is_auto_dim() || v.runtime_axis != -1 ||
        (v.is_table() && r.index.size() != v.indices.size()))
      return std::nullopt;
    std::optional<std::vector<uint64_t>> b = geometry::broadcast_shape(out, v.shape);
    if (!b) return std::nullopt;
    out = std::move(*b);
  }
  if (k.ops.size() > 1 && out != k.shape) return std::nullopt;  // the chain runs over k.shape
  return out;
}

std::optional<int64_t> window_length(const PlanIn& plan, const std::string& term) {
  const size_t dots = term.find("..");
  const std::string a = term.substr(0, dots), b = term.substr(dots + 2);
  const auto sa = a.empty() ? std::optional<int64_t>(0) : static_term(plan, a);
  const auto sb = static_term(plan, b);
  if (sa && sb) return *sb - *sa;
  if (!a.empty() && b.rfind(a + "+", 0) == 0) return static_term(plan, b.substr(a.size() + 1));
  return std::nullopt;
}

std::map<uint32_t, std::vector<json::object>> route_window_outputs(PlanIn& plan) {
  std::map<uint32_t, std::vector<json::object>> copies;
  for (KernelIn& k : plan.kernels) {
    bool changed = false;
    for (size_t i = 0; i < k.ops.size(); ++i) {
      OpIn& op = k.ops[i];
      const ValueRef ref = parse_ref(op.output);
      const bool window =
          ref.all || std::any_of(ref.index.begin(), ref.index.end(), [](const std::string& t) {
            return t.find("..") != std::string::npos;
          });
      if (!window) continue;
      auto it = plan.value_index.find(ref.name);
      if (it == plan.value_index.end() || !plan.values[it->second].is_table())
        invalid_plan(op_where(op) + ": output '" + op.output + "' is not a window of a table");
      const ValueIn table = plan.values[it->second];  // a copy: plan.values grows below
      std::vector<std::string> terms = ref.index;
      if (terms.size() > table.indices.size())
        invalid_plan(op_where(op) + ": '" + op.output + "' gives more indices than '" + table.name +
                     "' has");
      for (size_t t = terms.size(); t < table.indices.size(); ++t)
        terms.push_back(table.bound[t] ? "0.." + std::to_string(table.bound[t]) : "0..");
      std::vector<uint64_t> shape;
      std::string runtime;  // a window term whose length is known only at run time
      for (const std::string& t : terms) {
        if (t.find("..") == std::string::npos) continue;
        const std::optional<int64_t> n = window_length(plan, t);
        if (!n) {
          runtime = t;
          shape.push_back(0);
          continue;
        }
        if (*n < 0) invalid_plan(op_where(op) + ": empty window '" + t + "'");
        shape.push_back(static_cast<uint64_t>(*n));
      }
      if (!runtime.empty()) {
        // The op's result has a static shape (op_result_shape): the scratch value holds it and
        // the copy stores it as the simulator does (the host's spread_copy): spread over the
        // window where it broadcasts to the window's run-time shape, else the store's error.
        const std::optional<std::vector<uint64_t>> b =
            op_result_shape(plan, k, op, table.shape.size(), true);
        if (!b)
          glsl_gap("table-window-operand", op_where(op) + ": output '" + op.output +
                                               "', a window whose length '" + runtime +
                                               "' is known only at run time, written by an op "
                                               "whose result's shape the plan leaves open");
        ValueIn s;
        s.name = "@win" + std::to_string(k.id) + "_" + std::to_string(i);
        s.storage = "scratch";
        s.dtype = table.dtype;
        s.shape = *b;
        for (uint64_t d : s.shape) s.elements *= d;
        s.bytes = table.elements
                      ? (s.elements * table.entry_bytes + table.elements - 1) / table.elements
                      : 0;
        json::object c{{"op", "copy"},
                       {"from", s.name},
                       {"to", table.name},
                       {"to_entry", json::array(terms.begin(), terms.end())},
                       {"spread", true}};
        if (!op.output_at.empty()) c["at"] = op.output_at;
        if (op.settings.contains("acc"))  // the access checked first, with the op's words
          c["acc"] = json::object{{"op", op.op},
                                  {"at", op.at},
                                  {"spreads", op.shape_rule == "broadcast" && op.broadcast}};
        route_to_scratch(plan, k, op, std::move(s), std::move(c), copies);
        changed = true;
        continue;
      }
      // dsl.md: an op's result that broadcasts to the window (the shape of a kernel of one
      // backend op: its result's; its window axes a trailing part of the window's, after axes of
      // length 1, fewer or the same; an elementwise kernel's shape is an entry's, not its
      // result's) is computed in its own shape and spread over the window: the scratch value
      // holds the result, the copy repeats it (`softmax(x, axis=0) >> K[0..2]`, `slice(x,
      // starts=[1], ends=[2], axes=[0]) >> S[0..2]` with x: f32[2, 3]).
      std::vector<uint64_t> full = shape;
      full.insert(full.end(), table.shape.begin(), table.shape.end());
      const size_t er = table.shape.size();
      bool spread = k.ops.size() == 1 && k.kind != "elementwise" && !k.shape.empty() &&
                    k.shape.size() >= er && k.shape.size() <= full.size() && k.shape != full &&
                    std::equal(table.shape.begin(), table.shape.end(), k.shape.end() - er);
      if (spread) {
        const size_t kl = k.shape.size() - er;  // the result's window axes
        size_t j = 0;
        while (j < kl && k.shape[j] == 1) ++j;
        spread = std::equal(k.shape.begin() + static_cast<std::ptrdiff_t>(j), k.shape.end() - er,
                            shape.end() - static_cast<std::ptrdiff_t>(kl - j));
      }
      if (spread) shape.assign(k.shape.begin(), k.shape.end() - static_cast<std::ptrdiff_t>(er));
      // A result no larger than an entry that broadcasts to the window (`softmax(x, axis=0) >>
      // S[]` with x: f32[D] and S's entries [2, D]: its axes, after any of length 1, a trailing
      // part of an entry's) is spread element by element: the copy repeats its bytes.
      bool part = false;
      if (!spread && k.ops.size() == 1 && k.kind != "elementwise" && k.shape != full &&
          table.elements && table.entry_bytes % table.elements == 0) {
        size_t j = 0;
        while (j < k.shape.size() && k.shape[j] == 1) ++j;
        const size_t n = k.shape.size() - j;
        part = n <= er && std::equal(k.shape.begin() + static_cast<std::ptrdiff_t>(j),
                                     k.shape.end(), full.end() - static_cast<std::ptrdiff_t>(n));
      }
      uint64_t count = 1;
      for (uint64_t n : shape) count *= n;
      ValueIn s;
      s.name = "@win" + std::to_string(k.id) + "_" + std::to_string(i);
      s.storage = "scratch";
      s.dtype = table.dtype;
      shape.insert(shape.end(), table.shape.begin(), table.shape.end());
      s.shape = part ? k.shape : shape;
      for (uint64_t d : s.shape) s.elements *= d;
      s.bytes =
          part ? s.elements * (table.entry_bytes / table.elements) : count * table.entry_bytes;
      spread = spread || part;
      json::object c{{"op", "copy"},
                     {"from", s.name},
                     {"to", table.name},
                     {"to_entry", json::array(terms.begin(), terms.end())}};
      if (spread) c["repeat"] = true;
      if (!op.output_at.empty()) c["at"] = op.output_at;
      route_to_scratch(plan, k, op, std::move(s), std::move(c), copies);
      changed = true;
    }
    if (!changed) continue;
    drop_unnamed(k);  // a table its ops no longer name
  }
  return copies;
}

}  // namespace oi::glsl
