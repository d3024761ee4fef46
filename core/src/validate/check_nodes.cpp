// Level 1 checks of single nodes: ops against the catalog (inputs, settings, acc=, in-place),
// writes into constant memory, cache operations on persistent memory.
#include <set>

#include "graph_index.hpp"
#include "literal_fit.hpp"
#include "openinfer/shift_bits.hpp"

namespace oi::validation {
namespace {

std::string list_dtypes(const std::vector<DType>& ts) {
  std::string s;
  for (DType t : ts) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

std::string_view value_kind_text(Value::Kind k) {
  switch (k) {
    case Value::Kind::Int:
      return "an integer";
    case Value::Kind::Float:
      return "a float";
    case Value::Kind::Bool:
      return "a bool";
    case Value::Kind::String:
      return "a string";
    case Value::Kind::DType:
      return "a dtype";
    case Value::Kind::Ident:
      return "a name";
    case Value::Kind::IntList:
      return "an integer list";
  }
  return "a value";
}

bool value_matches(const SettingSpec& spec, const Value& v) {
  switch (spec.type) {
    case SettingType::Int:
      return v.kind == Value::Kind::Int || v.kind == Value::Kind::Ident;
    case SettingType::Number:
      return v.kind == Value::Kind::Int || v.kind == Value::Kind::Float ||
             v.kind == Value::Kind::Ident;
    case SettingType::Bool:
      return v.kind == Value::Kind::Bool || v.kind == Value::Kind::Ident;
    case SettingType::String:
      return v.kind == Value::Kind::String;
    case SettingType::DType:
      return v.kind == Value::Kind::DType ||
             (v.kind == Value::Kind::Ident && dtype_from_name(v.text).has_value());
    case SettingType::IntList:
      return v.kind == Value::Kind::IntList;
  }
  return false;
}

std::optional<DType> dtype_value(const Value& v) {
  if (v.kind == Value::Kind::DType) return v.dtype;
  if (v.kind == Value::Kind::Ident) return dtype_from_name(v.text);
  return std::nullopt;
}

bool same_place(const Ref& in, const Access& out) {
  if (in.name != out.name) return false;
  if (out.slots.size() != in.indices.size()) return false;
  for (size_t i = 0; i < in.indices.size(); ++i)
    if (out.slots[i].kind != Slot::Kind::Index || !(out.slots[i].index == in.indices[i]))
      return false;
  return true;
}

class NodeChecker {
 public:
  explicit NodeChecker(const GraphIndex& index) : index_(index), diag_(index.diag) {}

  void check(const Node& n) {
    switch (n.kind) {
      case NodeKind::Op:
        check_write(n, n.output.name);
        check_op(n);
        break;
      case NodeKind::Transfer:
        check_write(n, n.output.name);
        break;
      case NodeKind::CacheRead:
        check_persistent(n, n.target.name);
        check_write(n, n.output.name);
        break;
      case NodeKind::CacheWrite:
      case NodeKind::CacheReset:
        check_write(n, n.target.name);
        check_persistent(n, n.target.name);
        break;
      case NodeKind::CacheIncrement:
      case NodeKind::CacheDecrement:
        check_counter(n);
        break;
      default:
        break;
    }
  }

 private:
  const GraphIndex& index_;
  Diagnostics& diag_;

  void check_write(const Node& n, const std::string& name) {
    const Symbol* s = index_.symbol(name);
    if (s && s->is_constant())
      diag_.error(n.loc, describe(n) + " writes '" + name +
                             "', which is in constant memory (constant memory is read-only)");
    // A volatile prefix table's entries are the model's tensors, read in place: writing one
    // would change the model (or fault on its read-only mapping).
    else if (s && s->memory == MemoryKind::Volatile && s->table_indices() > 0)
      diag_.error(n.loc, describe(n) + " writes an entry of prefix table '" + name +
                             "' (its entries are the model's tensors and read-only; write a "
                             "copy into another variable)");
  }

  void check_persistent(const Node& n, const std::string& name) {
    const Symbol* s = index_.symbol(name);
    if (s && !s->is_persistent())
      diag_.error(n.loc,
                  describe(n) + " needs a persistent variable; '" + name + "' is " +
                      (s->memory ? std::string(memory_kind_name(*s->memory)) : "a temporary"));
  }

  void check_counter(const Node& n) {
    const Symbol* s = index_.symbol(n.var);
    if (!s) return;  // reported by the name checks
    if (!s->is_persistent() || !s->is_scalar() || !is_integer(s->dtype))
      diag_.error(
          n.loc, describe(n) + " needs an integer scalar in persistent memory; '" + n.var +
                     "' is " +
                     (s->memory ? std::string(memory_kind_name(*s->memory)) : "a temporary") + " " +
                     std::string(dtype_name(s->dtype)) + (s->is_scalar() ? "" : " (not a scalar)"));
  }

  std::optional<DType> dtype_of(const std::string& name) const {
    const Symbol* s = index_.symbol(name);
    return s ? std::optional<DType>(s->dtype) : std::nullopt;
  }

  void check_op(const Node& n) {
    const OpSchema* op = index_.catalog.find(n.op);
    if (!op) {
      diag_.error(n.loc, "unknown op '" + n.op + "' (not in the op catalog)");
      return;
    }
    const auto count = static_cast<uint32_t>(n.inputs.size());
    if (count < op->min_inputs() || count > op->max_inputs()) {
      std::string want =
          op->min_inputs() == op->max_inputs()
              ? std::to_string(op->min_inputs())
              : std::to_string(op->min_inputs()) + " to " + std::to_string(op->max_inputs());
      diag_.error(n.loc, "op '" + n.op + "' takes " + want + " input" +
                             (op->max_inputs() == 1 ? "" : "s") + ", got " + std::to_string(count));
    }
    const std::optional<DType> in0 = n.inputs.empty() ? std::nullopt : dtype_of(n.inputs[0].name);
    std::set<std::string> seen;
    const Setting* acc = nullptr;
    for (const auto& s : n.settings) {
      const SourceLocation& loc = s.loc.line ? s.loc : n.loc;
      const SettingSpec* spec = op->find_setting(s.name);
      if (!spec) {
        std::string known;
        for (const auto& k : op->settings) known += (known.empty() ? "" : ", ") + k.name;
        diag_.error(loc, "op '" + n.op + "' has no setting '" + s.name + "'" +
                             (known.empty() ? " (it takes none)" : " (it takes " + known + ")"));
        continue;
      }
      if (!seen.insert(spec->name).second) {
        diag_.error(loc, "setting '" + spec->name + "' of op '" + n.op + "' is given twice");
        continue;
      }
      if (!value_matches(*spec, s.value)) {
        diag_.error(loc, "setting '" + s.name + "' of op '" + n.op + "' takes " +
                             std::string(setting_type_name(spec->type)) + ", got " +
                             std::string(value_kind_text(s.value.kind)));
        continue;
      }
      check_setting_value(n, *op, *spec, s, loc, in0);
      if (spec->name == "acc") acc = &s;
    }
    for (const auto& spec : op->settings)
      if (spec.required && !seen.count(spec.name))
        diag_.error(n.loc, "op '" + n.op + "' needs setting '" + spec.name + "'");
    if (acc) check_acc(n, *op, *acc, in0);
    if (!op->inplace)
      for (const auto& in : n.inputs)
        if (same_place(in, n.output)) {
          diag_.error(n.loc, "op '" + n.op + "' cannot run in place (output '" + in.name +
                                 "' is also an input)");
          break;
        }
  }

  void check_setting_value(const Node& n, const OpSchema& op, const SettingSpec& spec,
                           const Setting& s, const SourceLocation& loc, std::optional<DType> in0) {
    const std::string what = "setting '" + s.name + "' of op '" + n.op + "'";
    // Only a number for u64 values may exceed INT64_MAX (its bits travel as an int64).
    if (s.value.kind == Value::Kind::Int && s.value.above_int64 && spec.type != SettingType::Number)
      diag_.error(loc, what + " is " + s.value.int_text() +
                           ", out of range (integer settings are signed 64-bit)");
    if (spec.type == SettingType::String && !spec.allowed_values.empty()) {
      bool ok = false;
      std::string allowed;
      for (const auto& a : spec.allowed_values) {
        ok |= a == s.value.text;
        allowed += (allowed.empty() ? "\"" : ", \"") + a + "\"";
      }
      if (!ok) diag_.error(loc, what + " is \"" + s.value.text + "\"; allowed: " + allowed);
    }
    if (spec.name == "bits" && s.value.kind == Value::Kind::Int) {
      const int64_t width = in0 ? dtype_bits(*in0) : 64;
      if (!shift_bits_in_range(s.value.int_value, width))
        diag_.error(loc, shift_bits_message(n.op, std::to_string(s.value.int_value), width,
                                            in0 ? dtype_name(*in0) : std::string_view()));
    }
    if (spec.type == SettingType::DType && spec.name == op.output_dtype.setting &&
        !op.to_dtypes.empty()) {
      auto t = dtype_value(s.value);
      if (t && std::find(op.to_dtypes.begin(), op.to_dtypes.end(), *t) == op.to_dtypes.end())
        diag_.error(loc, what + " is " + std::string(dtype_name(*t)) +
                             "; allowed: " + list_dtypes(op.to_dtypes));
    }
    // Integer inputs take integral values in range (ops.md "Settings").
    if (spec.type == SettingType::Number && in0 && !is_float(*in0) &&
        (s.value.kind == Value::Kind::Int || s.value.kind == Value::Kind::Float)) {
      std::string problem = literal_fit_problem(s.value, *in0, FitMode::Setting);
      if (!problem.empty()) diag_.error(loc, what + ": " + problem);
    }
  }

  void check_acc(const Node& n, const OpSchema& op, const Setting& acc, std::optional<DType> in0) {
    const SourceLocation& loc = acc.loc.line ? acc.loc : n.loc;
    auto target = dtype_value(acc.value);
    if (!target) return;
    const std::string acc_name(dtype_name(*target));
    if (in0 && !op.allows_accumulate(*in0, *target)) {
      auto it = op.accumulate.find(*in0);
      diag_.error(loc,
                  "acc=" + acc_name + " is not allowed for op '" + n.op + "' on " +
                      std::string(dtype_name(*in0)) +
                      (it == op.accumulate.end() ? " (no wider accumulation for that dtype)"
                                                 : " (allowed: " + list_dtypes(it->second) + ")"));
    }
    if (auto out = dtype_of(n.output.name); out && *out != *target)
      diag_.error(loc, "op '" + n.op + "' with acc=" + acc_name + " must write an " + acc_name +
                           " output; '" + n.output.name + "' is " + std::string(dtype_name(*out)));
    for (const auto& in : n.inputs)
      if (in.name == n.output.name) {
        diag_.error(loc, "op '" + n.op + "' with acc= never runs in place (output '" +
                             n.output.name + "' is also an input)");
        break;
      }
  }
};

}  // namespace

void check_nodes(const GraphIndex& index) {
  NodeChecker checker(index);
  for (const auto& b : index.graph.blocks)
    for_each_node(b.nodes, [&](const Node& n, size_t) { checker.check(n); });
}

}  // namespace oi::validation
