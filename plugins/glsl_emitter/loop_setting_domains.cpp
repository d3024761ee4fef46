// The domains of integer settings naming a loop index (loop_setting_domains.hpp).
#include "loop_setting_domains.hpp"

#include <optional>

#include "openinfer/broadcast.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

using Dims = std::vector<uint64_t>;

// The shape of op operand `text`: a whole plain value or one whole table entry; nullopt for
// windows, whole tables and @auto_dim matrices (whose shape is known only at run time).
std::optional<Dims> operand_dims(const PlanIn& plan, const std::string& text) {
  const ValueRef r = parse_ref(text);
  auto it = plan.value_index.find(r.name);
  if (it == plan.value_index.end() || r.all) return std::nullopt;
  const ValueIn& v = plan.values[it->second];
  if (v.is_auto_dim() || (v.is_table() && r.index.size() != v.indices.size())) return std::nullopt;
  if (!v.is_table() && !r.index.empty()) return std::nullopt;
  return v.shape;
}

// core's format_dims
std::string dims_text(const Dims& v) {
  std::string t = "[";
  for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
  return t + "]";
}

// The result of `rule` for axis a (made non-negative) of x = in[0], or the rule's error
// (core's shape_rules.cpp and shape_rules_nn.cpp, word for word); nullopt for a rule this does
// not follow.
struct RuleResult {
  Dims shape;
  std::string error;
};
std::optional<RuleResult> rule_result(const std::string& rule, const std::vector<Dims>& in,
                                      size_t a, bool keep) {
  const Dims& x = in[0];
  RuleResult r{x, {}};
  if (rule == "same_as_input0_axis") return r;
  if (rule == "norm_trailing") {
    const Dims trailing(x.begin() + static_cast<std::ptrdiff_t>(a), x.end());
    for (size_t i = 1; i < in.size() && r.error.empty(); ++i)
      if (in[i] != trailing)
        r.error = "input " + std::to_string(i) + " has shape " + dims_text(in[i]) +
                  " but must have " + dims_text(trailing) + ", the dims of " + dims_text(x) +
                  " from axis " + std::to_string(a);
    return r;
  }
  if (rule == "dequantize") {
    if (in.size() < 2) return std::nullopt;
    const Dims& scale = in[1];
    if (scale.size() > 1)
      r.error = "dequantize scale must be a scalar or 1-D, got " + dims_text(scale);
    else if (scale.size() == 1 && scale[0] != x[a])
      r.error = "dequantize scale " + dims_text(scale) + " must have " + std::to_string(x[a]) +
                " entries, x's size along axis " + std::to_string(a);
    else if (in.size() > 2 && in[2] != scale)
      r.error = "dequantize zero_point " + dims_text(in[2]) + " must have scale's shape " +
                dims_text(scale);
    return r;
  }
  if (rule == "argreduce_axis") {
    r.shape.erase(r.shape.begin() + static_cast<std::ptrdiff_t>(a));
    if (keep) r.shape.insert(r.shape.begin() + static_cast<std::ptrdiff_t>(a), 1);
    return r;
  }
  if (rule == "concat") {
    for (size_t i = 1; i < in.size(); ++i) {
      bool ok = in[i].size() == x.size();
      for (size_t k = 0; ok && k < x.size(); ++k) ok = k == a || in[i][k] == x[k];
      if (!ok) {
        r.error = "input " + std::to_string(i) + " has shape " + dims_text(in[i]) +
                  ", which does not match " + dims_text(x) + " outside axis " + std::to_string(a);
        return r;
      }
      r.shape[a] += in[i][a];
    }
    return r;
  }
  if (rule == "gather") {
    if (in.size() < 2) return std::nullopt;
    r.shape.erase(r.shape.begin() + static_cast<std::ptrdiff_t>(a));
    r.shape.insert(r.shape.begin() + static_cast<std::ptrdiff_t>(a), in[1].begin(), in[1].end());
    return r;
  }
  return std::nullopt;
}

}  // namespace

bool axis_domain(const PlanIn& plan, const OpIn& op, const std::string& index, bool raw,
                 json::array& classes, std::vector<std::vector<int64_t>>& domains) {
  const std::string& rule = op.shape_rule;  // the op's catalog shape rule, as the plan gives it
  if (op.inputs.empty()) return false;
  std::vector<Dims> in;
  for (const std::string& t : op.inputs) {
    std::optional<Dims> d = operand_dims(plan, t);
    if (!d) return false;
    in.push_back(std::move(*d));
  }
  const Dims& x = in[0];
  const size_t rank = x.size();
  if (rank == 0) return false;
  // dequantize with a scalar scale reads no axis (the rule never checks it)
  if (rule == "dequantize" && in.size() > 1 && in[1].empty() && (in.size() < 3 || in[2].empty())) {
    classes.emplace_back("any");
    domains.push_back({0});
    return true;
  }
  // the ops whose result has x's shape for every axis may store it anywhere (a window, ...)
  const bool same =
      rule == "same_as_input0_axis" || rule == "norm_trailing" || rule == "dequantize";
  const bool plain_output = op.output.find('[') == std::string::npos;
  const std::optional<Dims> out = same ? std::optional<Dims>(x) : operand_dims(plan, op.output);
  if (!out) return false;
  // keepdims: a literal, the same index (true where its value is nonzero), or another index
  // (`keep`: the errors then by value and keepdims, "V/0" and "V/1")
  bool keep = false, keep_named = false;
  std::string keep_index;
  if (const json::value* k = op.settings.if_contains("keepdims")) {
    const json::object* o = k->if_object();
    const json::value* name = o ? o->if_contains("name") : nullptr;
    if (k->is_bool()) {
      keep = k->as_bool();
    } else if (name && *name == json::value(index) && raw) {
      keep_named = true;
    } else if (name && name->is_string()) {
      keep_index = std::string(name->as_string());
    } else {
      return false;
    }
  }
  // The simulator's error at axis a (the value made non-negative) with keepdims `kd`, "" where
  // the value fits; nullopt where it is not followed here.
  auto error_at = [&](size_t a, bool kd) -> std::optional<std::string> {
    const std::optional<RuleResult> res = rule_result(rule, in, a, kd);
    if (!res) return std::nullopt;
    if (!res->error.empty()) {
      // the rule's error comes after the output access and the inputs are read (entries
      // checked first by the host); a window's copy checks its bounds after the dispatch
      if (!plain_output && !operand_dims(plan, op.output)) return std::nullopt;
      return op.at + ": op '" + op.op + "': " + res->error;
    }
    if (res->shape == *out) return "";
    if (plain_output)
      return op.at + ": op '" + op.op + "' produces shape " + dims_text(res->shape) +
             " but output '" + op.output + "' has shape " + dims_text(*out);
    // into a table entry: a result that broadcasts to it is spread over it (not followed
    // here); another is stored as cache.write stores it, which refuses it naming the access
    const std::optional<Dims> common = geometry::broadcast_shape(res->shape, *out);
    if ((common && *common == *out) || op.output_at.empty()) return std::nullopt;
    return op.output_at + ": cannot store a value of shape " + dims_text(res->shape) + " into '" +
           parse_ref(op.output).name + "' where the access has shape " + dims_text(*out);
  };
  std::vector<int64_t> d;
  json::object errors;  // value (and keepdims) -> the simulator's error there
  const auto r = static_cast<int64_t>(rank);
  for (int64_t v = raw ? -r : 0; v < r; ++v) {
    const auto a = static_cast<size_t>(v < 0 ? v + r : v);
    bool fits = false;
    for (int kd = 0; kd < (keep_index.empty() ? 1 : 2); ++kd) {
      const std::optional<std::string> e =
          error_at(a, keep_index.empty() ? (keep_named ? v != 0 : keep) : kd != 0);
      if (!e) return false;
      fits = fits || e->empty();
      if (!e->empty())
        errors[std::to_string(v) + (keep_index.empty() ? "" : kd ? "/1" : "/0")] = *e;
    }
    if (fits) d.push_back(v);
  }
  // (d empty: no value fits; each stops the step with its error, and no copy is written)
  // the simulator's words for an axis out of range (the catalog's shape rule)
  json::object c{
      {"axis", rank},
      {"message", op.at + ": op '" + op.op + "': axis {value} is out of range for rank " +
                      std::to_string(rank)}};
  if (!errors.empty()) c["errors"] = std::move(errors);
  if (raw) c["raw"] = true;
  if (!keep_index.empty()) c["keep"] = keep_index;
  classes.emplace_back(std::move(c));
  domains.push_back(std::move(d));
  return true;
}

bool group_domain(const PlanIn& plan, const OpIn& op, json::array& classes,
                  std::vector<std::vector<int64_t>>& domains) {
  if (op.shape_rule != "conv" || op.inputs.size() < 2) return false;
  const std::optional<Dims> x = operand_dims(plan, op.inputs[0]),
                            w = operand_dims(plan, op.inputs[1]);
  if (!x || !w || x->size() < 3 || w->size() != x->size()) return false;
  const uint64_t c = (*x)[1], m = (*w)[0], w1 = (*w)[1];
  // no input channels nor weight ones: every group dividing m fits (not followed here)
  if (c == 0 && w1 == 0) return false;
  classes.emplace_back(json::object{{"group", json::object{{"at", op.at + ": op '" + op.op + "': "},
                                                           {"c", c},
                                                           {"m", m},
                                                           {"w1", w1},
                                                           {"x", dims_text(*x)},
                                                           {"w", dims_text(*w)}}}});
  // the one value that fits; none where w1 does not divide c into a group dividing m (every
  // value then stops the step with the rule's words: no copy is written)
  const bool fits = w1 != 0 && c % w1 == 0 && m % (c / w1) == 0;
  domains.push_back(fits ? std::vector<int64_t>{static_cast<int64_t>(c / w1)}
                         : std::vector<int64_t>{});
  return true;
}

}  // namespace oi::glsl
