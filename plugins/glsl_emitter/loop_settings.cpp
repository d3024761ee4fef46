// Kernels whose settings name a loop index, written once per value (loop_settings.hpp).
#include "loop_settings.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "loop_setting_domains.hpp"
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

bool bool_setting(const std::string& key) {
  static const std::set<std::string> kBool{"keepdims",          "select_first", "saturate",
                                           "count_include_pad", "causal",       "interleaved"};
  return kBool.count(key) > 0;
}

bool finite_classes(const PlanIn& plan, const KernelIn& k, IndexedKernel& ik) {
  json::array classes;
  std::vector<std::vector<int64_t>> domains;
  std::vector<std::string> finite, params, patched;
  uint64_t rows = 1;
  for (const std::string& index : ik.by) {
    bool named_bool = false, named_other = false;  // other: a number setting (a params word)
    std::vector<const OpIn*> axis_of, group_of;    // ops whose axis or group the index names
    for (const OpIn& op : k.ops)
      for (const auto& kv : op.settings)
        if (const json::object* o = kv.value().if_object())
          if (const json::value* n = o->if_contains("name");
              n && n->is_string() && n->as_string() == index) {
            const std::string key(kv.key());
            if (key == "axis")
              axis_of.push_back(&op);
            else if (key == "group")
              group_of.push_back(&op);
            else if (bool_setting(key))
              named_bool = true;
            else
              named_other = true;
          }
    if (axis_of.empty() && group_of.empty()) {
      if (!named_bool) {  // number settings only: params words in every copy
        params.push_back(index);
        continue;
      }
      // false and true; where the index also names number settings, the copy for true takes
      // them at run time through params words (the copy for false: the value is 0)
      classes.emplace_back("bool");
      domains.push_back({0, 1});
      if (named_other) patched.push_back(index);
    } else if (axis_of.size() == 1 && group_of.empty()) {
      // one op's axis (only single ops have one: two axes never share a kernel); every other
      // setting the index names takes the value itself (a bool: -2 is true, axis 0 of rank 2),
      // so a copy per value in [-R, R)
      if (!axis_domain(plan, *axis_of[0], index, named_bool || named_other, classes, domains))
        return false;
    } else if (group_of.size() != 1 || !axis_of.empty() ||
               !group_domain(plan, *group_of[0], classes, domains)) {
      return false;
    }
    finite.push_back(index);
    rows = std::min<uint64_t>(rows * domains.back().size(), kMaxIndexedCopies + 1);
  }
  if (finite.empty()) return false;
  if (rows > kMaxIndexedCopies) {
    std::string names;
    for (const std::string& n : finite) names += (names.empty() ? "'" : ", '") + n + "'";
    glsl_gap("loop-setting-runtime-bounds",
             "kernel " + std::to_string(k.id) + ": its settings name loop indices " + names +
                 " of values known only at run time, whose settings of a finite domain would " +
                 "need more than " + std::to_string(kMaxIndexedCopies) +
                 " copies of the kernel, one per combination of their values");
  }
  std::vector<std::vector<int64_t>> values(1);
  for (const std::vector<int64_t>& d : domains) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& row : values)
      for (int64_t v : d) {
        next.push_back(row);
        next.back().push_back(v);
      }
    values = std::move(next);
  }
  // An axis whose keepdims another index names: no copy for a combination that is an error
  // (the class's errors by value and keepdims, "V/0" or "V/1")
  for (size_t c = 0; c < classes.size(); ++c) {
    const json::object* o = classes[c].if_object();
    const json::value* keep = o ? o->if_contains("keep") : nullptr;
    const json::value* errors = o ? o->if_contains("errors") : nullptr;
    if (!keep || !errors) continue;
    const auto q = static_cast<size_t>(
        std::find(finite.begin(), finite.end(), std::string(keep->as_string())) - finite.begin());
    if (q == finite.size()) return false;  // keepdims named by an index of no finite domain
    std::erase_if(values, [&](const std::vector<int64_t>& row) {
      return errors->as_object().contains(std::to_string(row[c]) + (row[q] ? "/1" : "/0"));
    });
  }
  ik.values = std::move(values);
  ik.classes = std::move(classes);
  ik.by = std::move(finite);
  ik.params = std::move(params);
  ik.patched = std::move(patched);
  ik.why = std::move(ik.runtime);
  ik.runtime.clear();
  return true;
}

KernelIn indexed_copy(const KernelIn& k, const IndexedKernel& ik, size_t row, uint32_t id,
                      std::vector<std::string>& left) {
  KernelIn copy = k;
  copy.id = id;
  left = ik.params;
  const std::vector<int64_t>& values = ik.values[row];
  for (OpIn& op : copy.ops)
    for (auto& kv : op.settings)
      if (const json::object* o = kv.value().if_object())
        if (const json::value* n = o->if_contains("name"); n && n->is_string()) {
          const std::string name(n->as_string());
          auto it = std::find(ik.by.begin(), ik.by.end(), name);
          if (it == ik.by.end()) continue;
          const int64_t v = values[static_cast<size_t>(it - ik.by.begin())];
          const bool patched =
              std::find(ik.patched.begin(), ik.patched.end(), name) != ik.patched.end();
          if (patched && v != 0 && !bool_setting(std::string(kv.key()))) {
            if (std::find(left.begin(), left.end(), name) == left.end()) left.push_back(name);
            continue;
          }
          kv.value() = v;
        }
  return copy;
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
