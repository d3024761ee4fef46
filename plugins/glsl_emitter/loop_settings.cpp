// Kernels whose settings name a loop index, written once per value (loop_settings.hpp).
#include "loop_settings.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "refusal.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

// The loop indices a kernel's settings still name (resolve_settings left them as names).
std::vector<std::string> named_indices(const KernelIn& k) {
  std::vector<std::string> out;
  for (const OpIn& op : k.ops)
    for (const auto& kv : op.settings)
      if (const json::object* o = kv.value().if_object())
        if (const json::value* n = o->if_contains("name"); n && n->is_string()) {
          const std::string name(n->as_string());
          if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
        }
  return out;
}

class Walker {
 public:
  Walker(const PlanIn& plan, std::map<uint32_t, IndexedKernel>& out) : plan_(plan), out_(out) {
    for (const KernelIn& k : plan.kernels) {
      std::vector<std::string> by = named_indices(k);
      if (by.empty()) continue;
      for (const std::string& n : by) wanted_.insert(n);
      out_[k.id].by = std::move(by);
    }
  }

  // `env`: the loop indices around, nullopt where their value is not followed (no setting
  // names them) or not known at synthesis.
  void walk(const json::array& steps, std::map<std::string, std::optional<int64_t>>& env) {
    for (const json::value& sv : steps) {
      const json::object* s = sv.if_object();
      if (!s || !s->contains("kind") || !s->at("kind").is_string()) continue;
      const std::string kind(s->at("kind").as_string());
      if (kind == "kernel" && s->contains("kernel") && s->at("kernel").is_int64()) {
        kernel_step(static_cast<uint32_t>(s->at("kernel").as_int64()), env);
      } else if (kind == "loop" && s->contains("body") && s->at("body").is_array()) {
        const std::string index(s->at("index").as_string());
        const std::optional<int64_t> a = bound(s->at("start"), env), b = bound(s->at("end"), env);
        const bool shadows = env.count(index) > 0;
        const std::optional<int64_t> saved = shadows ? env[index] : std::nullopt;
        if (wanted_.count(index) && a && b && *b - *a <= static_cast<int64_t>(kMaxIndexedCopies)) {
          for (int64_t i = *a; i < *b; ++i) {
            env[index] = i;
            walk(s->at("body").as_array(), env);
          }
        } else {
          env[index] = std::nullopt;
          walk(s->at("body").as_array(), env);
        }
        if (shadows)
          env[index] = saved;
        else
          env.erase(index);
      }
    }
  }

 private:
  std::optional<int64_t> bound(const json::value& v,
                               const std::map<std::string, std::optional<int64_t>>& env) const {
    if (v.is_int64()) return v.as_int64();
    if (!v.is_string()) return std::nullopt;
    const std::string t(v.as_string());
    if (auto it = env.find(t); it != env.end()) return it->second;
    if (auto it = plan_.sizevars.find(t); it != plan_.sizevars.end())
      return static_cast<int64_t>(it->second);
    if (!t.empty() && t.find_first_not_of("-0123456789") == std::string::npos &&
        t.find('-', 1) == std::string::npos)
      return std::stoll(t);
    return std::nullopt;
  }

  void kernel_step(uint32_t id, const std::map<std::string, std::optional<int64_t>>& env) {
    auto it = out_.find(id);
    if (it == out_.end()) return;
    IndexedKernel& k = it->second;
    std::vector<int64_t> row;
    for (const std::string& n : k.by) {
      auto e = env.find(n);
      if (e == env.end()) return;  // not a loop index here: resolve_settings' other cases
      if (!e->second) {
        if (k.runtime.empty())
          k.runtime = "loop index '" + n +
                      "' takes values known only at run time (its loop's bounds) or more than " +
                      std::to_string(kMaxIndexedCopies);
        return;
      }
      row.push_back(*e->second);
    }
    if (!k.runtime.empty() || std::find(k.values.begin(), k.values.end(), row) != k.values.end())
      return;
    if (k.values.size() >= kMaxIndexedCopies) {
      k.runtime = "its settings' loop indices take more than " + std::to_string(kMaxIndexedCopies) +
                  " combinations";
      return;
    }
    k.values.push_back(std::move(row));
  }

  const PlanIn& plan_;
  std::map<uint32_t, IndexedKernel>& out_;
  std::set<std::string> wanted_;
};

}  // namespace

std::map<uint32_t, IndexedKernel> indexed_kernels(const PlanIn& plan) {
  std::map<uint32_t, IndexedKernel> out;
  Walker w(plan, out);
  if (out.empty()) return out;
  for (const json::value& b : plan.blocks)
    if (const json::object* o = b.if_object();
        o && o->contains("steps") && o->at("steps").is_array()) {
      std::map<std::string, std::optional<int64_t>> env;
      w.walk(o->at("steps").as_array(), env);
    }
  // A kernel whose named settings are no loop index around it (no value found) keeps them as
  // names: the writers then refuse them as a plan the planner does not produce.
  for (auto it = out.begin(); it != out.end();) {
    if (!it->second.runtime.empty()) it->second.values.clear();
    it = it->second.values.empty() && it->second.runtime.empty() ? out.erase(it) : std::next(it);
  }
  return out;
}

namespace {

// The shape of op operand `text`: a whole plain value or one whole table entry; nullopt for
// windows, whole tables and @auto_dim matrices (whose shape is known only at run time).
std::optional<std::vector<uint64_t>> operand_dims(const PlanIn& plan, const std::string& text) {
  const ValueRef r = parse_ref(text);
  auto it = plan.value_index.find(r.name);
  if (it == plan.value_index.end() || r.all) return std::nullopt;
  const ValueIn& v = plan.values[it->second];
  if (v.is_auto_dim() || (v.is_table() && r.index.size() != v.indices.size())) return std::nullopt;
  if (!v.is_table() && !r.index.empty()) return std::nullopt;
  return v.shape;
}

// The domain of the axis of `op` (of x's rank `rank`, x's dims `x`) named by a loop index:
// every axis where the result has the planned shape and the further inputs fit the catalog's
// shape rule for that axis, the class mapping the index's value to it. An axis whose result has
// another shape than a plain output stops the step with the simulator's words (it checks the
// rule at run time for a setting naming a variable: "errors", by axis); false where some axis
// in range does not fit the rule's inputs (the kernel stays the gap).
bool axis_domain(const PlanIn& plan, const OpIn& op, json::array& classes,
                 std::vector<std::vector<int64_t>>& domains) {
  // by the op's catalog shape rule, as the plan gives it
  const std::string& rule = op.shape_rule;
  const bool norm = rule == "norm_trailing", arg = rule == "argreduce_axis";
  if (op.inputs.empty()) return false;
  std::vector<std::vector<uint64_t>> in;
  for (const std::string& t : op.inputs) {
    std::optional<std::vector<uint64_t>> d = operand_dims(plan, t);
    if (!d) return false;
    in.push_back(std::move(*d));
  }
  const std::vector<uint64_t>& x = in[0];
  // the ops whose result has x's shape for every axis may store it anywhere (a window, ...)
  const bool same = rule == "same_as_input0_axis" || norm || rule == "dequantize";
  const std::optional<std::vector<uint64_t>> out =
      same ? std::optional<std::vector<uint64_t>>(x) : operand_dims(plan, op.output);
  if (!out) return false;
  const size_t rank = x.size();
  if (rank == 0) return false;
  // dequantize with a scalar scale reads no axis (the CPU backend never checks it)
  if (rule == "dequantize" && in.size() > 1 && in[1].empty()) {
    classes.emplace_back("any");
    domains.push_back({0});
    return true;
  }
  bool keep = false;
  if (const json::value* k = op.settings.if_contains("keepdims")) {
    if (!k->is_bool()) return false;  // named too: the shape would follow two settings
    keep = k->as_bool();
  }
  std::vector<int64_t> d;
  json::object errors;  // axis -> the simulator's error for a result of another shape
  const bool plain_output = !same && op.output.find('[') == std::string::npos;
  auto dims_text = [](const std::vector<uint64_t>& v) {
    std::string t = "[";
    for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
    return t + "]";
  };
  for (size_t a = 0; a < rank; ++a) {
    std::vector<uint64_t> shape = x;  // the result for axis a
    if (norm) {
      const std::vector<uint64_t> trailing(x.begin() + static_cast<std::ptrdiff_t>(a), x.end());
      for (size_t i = 1; i < in.size(); ++i)
        if (in[i] != trailing) return false;
    } else if (rule == "dequantize") {
      if (in[1].size() != 1 || in[1][0] != x[a] || (in.size() > 2 && in[2] != in[1])) return false;
    } else if (arg) {
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(a));
      if (keep) shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), 1);
    } else if (rule == "concat") {
      for (size_t i = 1; i < in.size(); ++i) {
        if (in[i].size() != rank) return false;
        for (size_t k = 0; k < rank; ++k)
          if (k != a && in[i][k] != x[k]) return false;
        shape[a] += in[i][a];
      }
    } else if (rule == "gather") {
      if (in.size() < 2) return false;
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(a));
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), in[1].begin(), in[1].end());
    } else if (rule != "same_as_input0_axis") {
      return false;
    }
    if (shape != *out) {
      if (!plain_output) return false;
      errors[std::to_string(a)] = op.at + ": op '" + op.op + "' produces shape " +
                                  dims_text(shape) + " but output '" + op.output + "' has shape " +
                                  dims_text(*out);
      continue;
    }
    d.push_back(static_cast<int64_t>(a));
  }
  if (d.empty()) return false;
  // the simulator's words for an axis out of range (the catalog's shape rule, which it checks
  // at run time for a setting naming a variable: core's shape_rules.cpp)
  json::object c{
      {"axis", rank},
      {"message", op.at + ": op '" + op.op + "': axis {value} is out of range for rank " +
                      std::to_string(rank)}};
  if (!errors.empty()) c["errors"] = std::move(errors);
  classes.emplace_back(std::move(c));
  domains.push_back(std::move(d));
  return true;
}

}  // namespace

bool finite_classes(const PlanIn& plan, const KernelIn& k, IndexedKernel& ik) {
  static const std::set<std::string> kBool{"keepdims",          "select_first", "saturate",
                                           "count_include_pad", "causal",       "interleaved"};
  json::array classes;
  std::vector<std::vector<int64_t>> domains;
  size_t rows = 1;
  for (const std::string& index : ik.by) {
    bool all_bool = true, named_bool = false;
    std::vector<const OpIn*> axis_of;  // ops whose axis the index names
    for (const OpIn& op : k.ops)
      for (const auto& kv : op.settings)
        if (const json::object* o = kv.value().if_object())
          if (const json::value* n = o->if_contains("name");
              n && n->is_string() && n->as_string() == index) {
            all_bool = all_bool && kBool.count(std::string(kv.key()));
            named_bool = named_bool || kBool.count(std::string(kv.key())) > 0;
            if (kv.key() == "axis")
              axis_of.push_back(&op);
            else if (!kBool.count(std::string(kv.key())))
              return false;
          }
    if (all_bool) {
      classes.emplace_back("bool");
      domains.push_back({0, 1});
    } else if (axis_of.size() != 1 || named_bool ||
               !axis_domain(plan, *axis_of[0], classes, domains)) {
      return false;  // one op's axis alone (a bool setting takes the value before it is made
                     // non-negative: -2 is true, axis 0 of rank 2)
    }
    rows *= domains.back().size();
    if (rows > kMaxIndexedCopies) return false;
  }
  ik.values.assign(1, {});
  for (const std::vector<int64_t>& d : domains) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& row : ik.values)
      for (int64_t v : d) {
        next.push_back(row);
        next.back().push_back(v);
      }
    ik.values = std::move(next);
  }
  ik.classes = std::move(classes);
  ik.runtime.clear();
  return true;
}

KernelIn with_index_values(const KernelIn& k, const std::vector<std::string>& by,
                           const std::vector<int64_t>& values, uint32_t id) {
  KernelIn copy = k;
  copy.id = id;
  for (OpIn& op : copy.ops)
    for (auto& kv : op.settings)
      if (const json::object* o = kv.value().if_object())
        if (const json::value* n = o->if_contains("name"); n && n->is_string()) {
          auto it = std::find(by.begin(), by.end(), std::string(n->as_string()));
          if (it != by.end()) kv.value() = values[static_cast<size_t>(it - by.begin())];
        }
  return copy;
}

}  // namespace oi::glsl
