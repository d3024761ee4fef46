// Level 2 checks against a model: size variables, links, prefix-table entries for constant loop
// bounds, op dtypes, output dtypes and shapes, transfer and cache dtypes and shapes.
#include "check_model.hpp"

#include <functional>

#include "../catalog/setting_value.hpp"
#include "openinfer/model.hpp"

namespace oi::validation {
namespace {

constexpr size_t kMaxEagerEntries = 4096;  // prefix entries checked per access

class ModelChecker {
 public:
  ModelChecker(const GraphIndex& index, const Model& model)
      : index_(index), diag_(index.diag), model_(model) {}

  void run() {
    for (const auto& d : index_.graph.decls) {
      auto dims = resolve(d.dims, d.loc, "'" + d.name + "'");
      if (dims) dims_[d.name] = *dims;
      for (const auto& f : d.fixed)
        if (f.bound.is_name()) sizevar(f.bound.name, d.loc);
      if (dims) check_link(d, *dims);
    }
    for (const auto& b : index_.graph.blocks) {
      LoopStack loops;
      walk(b.nodes, loops);
    }
  }

 private:
  const GraphIndex& index_;
  Diagnostics& diag_;
  const Model& model_;
  std::map<std::string, Dims> dims_;  // resolved dims of every variable whose sizevars exist

  std::optional<uint64_t> sizevar(const std::string& name, const SourceLocation& loc) {
    auto v = model_.find_sizevar(name);
    if (!v)
      diag_.error(loc, "unknown size variable '" + name + "' (the model has no such sizevar)");
    return v;
  }

  std::optional<Dims> resolve(const std::vector<Dim>& dims, const SourceLocation& loc,
                              const std::string& what) {
    Dims out;
    bool ok = true;
    for (const auto& d : dims) {
      uint64_t product = 1;
      for (const auto& f : d.factors) {
        uint64_t v = 0;
        if (f.is_sizevar()) {
          auto s = sizevar(f.sizevar, loc);
          if (!s) {
            ok = false;
            continue;
          }
          v = *s;
        } else {
          v = static_cast<uint64_t>(f.value);
        }
        if (v != 0 && product > UINT64_MAX / v) {
          diag_.error(loc, "a dim of " + what + " overflows 64 bits");
          return std::nullopt;
        }
        product *= v;
      }
      out.push_back(product);
    }
    return ok ? std::optional<Dims>(out) : std::nullopt;
  }

  std::string type_text(DType t, const Dims& d) {
    return std::string(dtype_name(t)) + format_dims(d);
  }

  void check_link(const VarDecl& d, const Dims& dims) {
    if (!d.indices.empty() || d.memory == MemoryKind::Dynamic) return;
    const std::string name = d.ref.value_or(d.name);
    if (const TensorEntry* t = model_.find_tensor(name)) {
      if (t->dtype != d.dtype || t->dims != dims)
        diag_.error(d.loc, "'" + d.name + "' is declared " + type_text(d.dtype, dims) +
                               " but model tensor '" + name + "' is " +
                               type_text(t->dtype, t->dims));
      return;
    }
    if (dims.empty()) {
      if (const MetadataEntry* m = model_.find_metadata(name)) {
        if (m->value_type != static_cast<uint32_t>(d.dtype))
          diag_.error(d.loc, "'" + d.name + "' is declared " + std::string(dtype_name(d.dtype)) +
                                 " but model metadata '" + name +
                                 "' is not a scalar of that dtype");
        return;
      }
    }
    if (d.ref)
      diag_.error(d.loc, "@ref(\"" + name + "\") of '" + d.name + "' names no entry of the model");
    else if (d.memory == MemoryKind::Constant && !d.init)
      diag_.error(d.loc, "constant '" + d.name + "' has neither a model entry nor an @init value");
  }

  // --- names used in indices, bounds and settings ----------------------------------------

  void scalar_name(const std::string& name, const SourceLocation& loc, const LoopStack& loops) {
    if (in_loop_scope(name, loops)) return;
    if (index_.symbol(name)) {
      if (model_.find_sizevar(name))
        diag_.warning(loc, "'" + name +
                               "' names both a declared variable and a size variable; "
                               "the variable is used");
      return;
    }
    if (!index_.any_loop_with_index(name)) sizevar(name, loc);  // else reported at level 1
  }

  void index_names(const std::vector<Index>& indices, const SourceLocation& loc,
                   const LoopStack& loops) {
    for (const auto& i : indices)
      if (!i.is_literal()) scalar_name(i.name, loc, loops);
  }

  // --- prefix tables ----------------------------------------------------------------------

  // The constant range of values an index takes (a literal, or a loop index with constant
  // bounds); nullopt when it depends on run-time values.
  std::optional<std::pair<int64_t, int64_t>> index_range(const Index& i, const LoopStack& loops) {
    if (i.is_literal()) return std::make_pair(i.offset, i.offset + 1);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      if ((*it)->var != i.name) continue;
      auto bound = [&](const Bound& b) -> std::optional<int64_t> {
        if (!b.is_name()) return b.value;
        if (index_.symbol(b.name) || in_loop_scope(b.name, loops)) return std::nullopt;
        auto v = model_.find_sizevar(b.name);
        if (!v || *v > INT64_MAX / 2) return std::nullopt;
        return static_cast<int64_t>(*v);
      };
      auto lo = bound((*it)->start), hi = bound((*it)->end);
      if (!lo || !hi) return std::nullopt;
      return std::make_pair(*lo + i.offset, *hi + i.offset);
    }
    return std::nullopt;
  }

  std::string entry_name(const VarDecl& d, const std::vector<int64_t>& values) {
    if (!d.pattern) {
      std::string s = d.name;
      for (int64_t v : values) s += "." + std::to_string(v);
      return s;
    }
    std::string s = *d.pattern;
    for (size_t k = 0; k < d.indices.size(); ++k) {
      const std::string key = "{" + d.indices[k] + "}";
      for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at))
        s.replace(at, key.size(), std::to_string(values[k]));
    }
    return s;
  }

  void check_prefix_entries(const Ref& r, const LoopStack& loops) {
    const Symbol* s = index_.symbol(r.name);
    if (!s || !s->decl || s->decl->indices.empty() || s->is_persistent()) return;
    if (r.indices.size() != s->decl->indices.size()) return;
    auto dims = dims_.find(r.name);
    if (dims == dims_.end()) return;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    size_t total = 1;
    for (const auto& i : r.indices) {
      auto range = index_range(i, loops);
      if (!range) return;  // checked when first used at run time
      if (range->first >= range->second) return;
      total *= static_cast<size_t>(
          std::min<int64_t>(range->second - range->first, kMaxEagerEntries + 1));
      if (total > kMaxEagerEntries) return;
      ranges.push_back(*range);
    }
    std::vector<int64_t> values(ranges.size());
    std::function<void(size_t)> each = [&](size_t k) {
      if (k == ranges.size()) {
        for (int64_t v : values)
          if (v < 0) {
            diag_.error(r.loc,
                        "prefix table '" + r.name + "' is indexed with " + std::to_string(v));
            return;
          }
        check_entry(*s->decl, dims->second, entry_name(*s->decl, values), r.loc);
        return;
      }
      for (int64_t v = ranges[k].first; v < ranges[k].second; ++v) {
        values[k] = v;
        each(k + 1);
      }
    };
    each(0);
  }

  void check_entry(const VarDecl& d, const Dims& dims, const std::string& name,
                   const SourceLocation& loc) {
    const TensorEntry* t = model_.find_tensor(name);
    if (!t)
      diag_.error(loc, "prefix table '" + d.name + "': model tensor '" + name + "' is missing");
    else if (t->dtype != d.dtype || t->dims != dims)
      diag_.error(loc, "prefix table '" + d.name + "' declares " + type_text(d.dtype, dims) +
                           " but model tensor '" + name + "' is " + type_text(t->dtype, t->dims));
  }

  // --- dtypes and shapes ------------------------------------------------------------------

  // The dtype and shape an access yields, when they are known statically.
  struct Typed {
    DType dtype;
    std::optional<Dims> dims;
  };

  std::optional<Typed> typed(const std::string& name, size_t index_count, bool has_brackets,
                             bool all_single) {
    const Symbol* s = index_.symbol(name);
    if (!s) return std::nullopt;
    Typed t{s->dtype, std::nullopt};
    auto d = dims_.find(name);
    if (s->assign && !dims_.count(name)) {
      if (auto r = resolve(*s->dims, s->loc, "'" + name + "'")) dims_[name] = *r;
      d = dims_.find(name);
    }
    const bool auto_dim = s->decl && !s->decl->auto_dim.empty();
    const bool whole = s->table_indices() == 0 && !has_brackets;
    const bool entry = s->table_indices() > 0 && index_count == s->table_indices() && all_single;
    if (d != dims_.end() && !auto_dim && (whole || entry)) t.dims = d->second;
    return t;
  }

  std::optional<Typed> typed(const Ref& r) {
    return typed(r.name, r.indices.size(), !r.indices.empty(), true);
  }

  std::optional<Typed> typed(const Access& a) {
    bool single = std::all_of(a.slots.begin(), a.slots.end(),
                              [](const Slot& s) { return s.kind == Slot::Kind::Index; });
    return typed(a.name, a.slots.size(), a.has_brackets, single);
  }

  void check_copy(const Node& n, const std::string& from, const std::optional<Typed>& a,
                  const std::string& to, const std::optional<Typed>& b) {
    if (!a || !b) return;
    if (a->dtype != b->dtype)
      diag_.error(n.loc, describe(n) + " copies " + std::string(dtype_name(a->dtype)) + " '" +
                             from + "' into " + std::string(dtype_name(b->dtype)) + " '" + to +
                             "' (no conversion; use op cast)");
    else if (a->dims && b->dims && *a->dims != *b->dims)
      diag_.error(n.loc, describe(n) + " copies '" + from + "' " + format_dims(*a->dims) +
                             " into '" + to + "' " + format_dims(*b->dims) + " (shapes differ)");
  }

  void check_op(const Node& n) {
    const OpSchema* op = index_.catalog.find(n.op);
    if (!op || n.inputs.size() < op->min_inputs() || n.inputs.size() > op->max_inputs()) return;
    std::vector<std::optional<Typed>> ins;
    for (const auto& in : n.inputs) ins.push_back(typed(in));
    const auto out = typed(n.output);
    if (!ins[0]) return;
    const DType in0 = ins[0]->dtype;
    std::optional<DType> acc_dtype;  // acc=DTYPE widens the output (and conv's bias may have it)
    for (const auto& s : n.settings)
      if (s.name == "acc")
        if (auto v = catalog_value(s.value))
          if (auto* t = std::get_if<DType>(&*v)) acc_dtype = *t;
    if (!op->supports(in0))
      diag_.error(n.loc, "op '" + n.op + "' does not support " + std::string(dtype_name(in0)) +
                             " (input '" + n.inputs[0].name + "')");
    for (size_t i = 1; i < ins.size(); ++i) {
      const InputSpec* spec = op->input_at(static_cast<uint32_t>(i));
      if (!ins[i] || !spec) continue;
      const DType t = ins[i]->dtype;
      const auto& rule = spec->dtype_rule;
      const bool in_set = std::find(rule.dtypes.begin(), rule.dtypes.end(), t) != rule.dtypes.end();
      bool ok = rule.kind == InputDtypeRule::Kind::SameAsInput0 ? (t == in0 || in_set)
                : rule.kind == InputDtypeRule::Kind::SameAsInput0OrAcc
                    ? (t == in0 || (acc_dtype && t == *acc_dtype))
                : rule.kind == InputDtypeRule::Kind::Explicit ? in_set
                                                              : op->supports(t);
      if (!ok)
        diag_.error(n.loc,
                    "op '" + n.op + "' input '" + n.inputs[i].name + "' is " +
                        std::string(dtype_name(t)) +
                        (rule.kind == InputDtypeRule::Kind::SameAsInput0
                             ? " but must have input 0's dtype " + std::string(dtype_name(in0))
                         : rule.kind == InputDtypeRule::Kind::SameAsInput0OrAcc
                             ? " but must have input 0's dtype " + std::string(dtype_name(in0)) +
                                   " or the acc= dtype"
                             : " which the op does not take there"));
    }
    RuleSettings given(*op);
    bool settings_known = true, has_acc = false;
    for (const auto& s : n.settings) {
      const SettingSpec* spec = op->find_setting(s.name);
      if (!spec) continue;
      auto v = catalog_value(s.value);
      if (!v) {
        settings_known = false;
        continue;
      }
      given.put(s.name, *v);
      has_acc |= spec->name == "acc";
    }
    const std::map<std::string, CatalogValue> settings = given.with_defaults();
    if (out && !has_acc) {
      std::optional<DType> want;
      switch (op->output_dtype.kind) {
        case OutputDtypeRule::Kind::Input0:
          want = in0;
          break;
        case OutputDtypeRule::Kind::Fixed:
          want = op->output_dtype.fixed;
          break;
        case OutputDtypeRule::Kind::Input:
          if (op->output_dtype.input < ins.size() && ins[op->output_dtype.input])
            want = ins[op->output_dtype.input]->dtype;
          break;
        case OutputDtypeRule::Kind::Setting: {
          auto it = settings.find(op->output_dtype.setting);
          if (it != settings.end())
            if (auto* t = std::get_if<DType>(&it->second)) want = *t;
          break;
        }
      }
      if (want && *want != out->dtype)
        diag_.error(n.loc, "op '" + n.op + "' produces " + std::string(dtype_name(*want)) +
                               " but output '" + n.output.name + "' is " +
                               std::string(dtype_name(out->dtype)));
    }
    if (!settings_known || !out || !out->dims) return;
    ShapeRuleContext ctx{*op, {}, *out->dims, settings};
    for (const auto& in : ins) {
      if (!in || !in->dims) return;
      ctx.inputs.push_back(*in->dims);
    }
    const ShapeRuleFn* rule = ShapeRuleRegistry::global().find(op->shape_rule);
    if (!rule) return;
    try {
      Dims want = (*rule)(ctx);
      if (want != *out->dims)
        diag_.error(n.loc, "op '" + n.op + "' produces shape " + format_dims(want) +
                               " but output '" + n.output.name + "' has shape " +
                               format_dims(*out->dims));
    } catch (const ShapeRuleError& e) {
      diag_.error(n.loc, "op '" + n.op + "': " + e.what());
    }
  }

  void walk(const std::vector<Node>& nodes, LoopStack& loops) {
    for (const Node& n : nodes) {
      for (const auto& in : n.inputs) {
        index_names(in.indices, in.loc, loops);
        check_prefix_entries(in, loops);
      }
      for (const Access* a : {&n.output, &n.target})
        for (const auto& s : a->slots)
          for (const Index* i :
               {&s.index, s.start ? &*s.start : nullptr, s.end ? &*s.end : nullptr})
            if (i && !i->is_literal() && (s.kind != Slot::Kind::Index || i == &s.index))
              scalar_name(i->name, a->loc, loops);
      for (const auto& s : n.settings)
        if (s.value.kind == Value::Kind::Ident && !dtype_from_name(s.value.text))
          scalar_name(s.value.text, s.loc.line ? s.loc : n.loc, loops);
      switch (n.kind) {
        case NodeKind::Assign:
          resolve(n.dims, n.loc, "'" + n.var + "'");
          break;
        case NodeKind::Op:
          check_op(n);
          break;
        case NodeKind::Transfer:
          if (!n.inputs.empty())
            check_copy(n, n.inputs[0].name, typed(n.inputs[0]), n.output.name, typed(n.output));
          break;
        case NodeKind::CacheRead:
          check_copy(n, n.target.name, typed(n.target), n.output.name, typed(n.output));
          break;
        case NodeKind::CacheWrite:
          if (!n.inputs.empty())
            check_copy(n, n.inputs[0].name, typed(n.inputs[0]), n.target.name, typed(n.target));
          break;
        case NodeKind::Loop:
          for (const Bound* b : {&n.start, &n.end})
            if (b->is_name()) scalar_name(b->name, n.loc, loops);
          loops.push_back(&n);
          walk(n.body, loops);
          loops.pop_back();
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace

void check_against_model(const GraphIndex& index, const Model& model) {
  ModelChecker(index, model).run();
}

}  // namespace oi::validation
