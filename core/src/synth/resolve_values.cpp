// Pass 1: dtypes, shapes and storage classes resolved against the model. Growable tables and
// @auto_dim matrices keep a run-time size; fixed-size tables and prefix tables are counted.
#include <algorithm>
#include <regex>

#include "openinfer/error.hpp"
#include "plan_internal.hpp"

namespace oi::synth {
namespace {

Dims resolve_dims(const std::vector<Dim>& dims, const Model& model) {
  Dims out;
  for (const Dim& d : dims) {
    uint64_t product = 1;
    for (const DimFactor& f : d.factors)
      product *= f.is_sizevar() ? model.size_of(f.sizevar) : static_cast<uint64_t>(f.value);
    out.push_back(product);
  }
  return out;
}

uint64_t bytes_of(DType t, const Dims& shape, const std::string& name) {
  auto numel = checked_numel(shape);
  auto bytes = numel ? storage_bytes(t, *numel) : std::nullopt;
  if (!bytes) throw input_error("the size of '" + name + "' overflows 64 bits");
  return *bytes;
}

std::string regex_escape(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

// Model tensors that are entries of a prefix table (`W(l) @pattern("W.{l}")`, or `W.0`...),
// and the extents along each index (the highest index among them + 1).
uint64_t count_prefix_entries(const VarDecl& d, const Model& model,
                              std::vector<uint64_t>& extents) {
  std::string pattern;
  std::vector<size_t> group_index;  // capture group -> the index it holds
  if (d.pattern) {
    // the keys in the order they occur in the pattern
    std::vector<std::pair<size_t, size_t>> keys;  // (position, index)
    for (size_t k = 0; k < d.indices.size(); ++k) {
      const std::string key = "{" + d.indices[k] + "}";
      for (size_t at = d.pattern->find(key); at != std::string::npos;
           at = d.pattern->find(key, at + 1))
        keys.push_back({at, k});
    }
    std::sort(keys.begin(), keys.end());
    size_t from = 0;
    for (const auto& [at, k] : keys) {
      pattern += regex_escape(d.pattern->substr(from, at - from)) + "([0-9]+)";
      group_index.push_back(k);
      from = at + d.indices[k].size() + 2;
    }
    pattern += regex_escape(d.pattern->substr(from));
  } else {
    pattern = regex_escape(d.name);
    for (size_t k = 0; k < d.indices.size(); ++k) {
      pattern += R"(\.([0-9]+))";
      group_index.push_back(k);
    }
  }
  const std::regex re(pattern);
  extents.assign(d.indices.size(), 0);
  uint64_t n = 0;
  std::smatch m;
  for (const TensorEntry& t : model.tensors())
    if (std::regex_match(t.name, m, re)) {
      ++n;
      for (size_t g = 0; g < group_index.size(); ++g) {
        const std::string digits = m[g + 1].str();
        if (digits.size() > 18) continue;  // no table has that many entries
        extents[group_index[g]] =
            std::max<uint64_t>(extents[group_index[g]], std::stoull(digits) + 1);
      }
    }
  return n;
}

std::optional<uint64_t> fixed_bound(const VarDecl& d, const std::string& index,
                                    const Model& model) {
  for (const FixedBound& f : d.fixed)
    if (f.index == index)
      return f.bound.is_name() ? model.size_of(f.bound.name) : static_cast<uint64_t>(f.bound.value);
  return std::nullopt;
}

// A scalar metadata entry as a literal (nullopt for strings, bitsets and arrays, which the
// simulator refuses for a scalar variable at run time).
std::optional<Value> metadata_scalar_value(const Model& model, const std::string& key) {
  const MetaValue meta = model.metadata_value(key);
  if (meta.kind != MetaValue::Kind::Scalar) return std::nullopt;
  const Tensor& t = meta.tensor;
  if (is_float(t.dtype())) return Value::floating(t.get_float(0));
  if (t.dtype() == DType::boolean) return Value::boolean(t.get_int(0) != 0);
  if (t.dtype() == DType::u64) return Value::unsigned_integer(static_cast<uint64_t>(t.get_int(0)));
  return Value::integer(t.get_int(0));
}

PlanValue declared_value(const VarDecl& d, const Model& model) {
  PlanValue v;
  v.name = d.name;
  v.memory = std::string(memory_kind_name(d.memory));
  v.dtype = d.dtype;
  v.shape = resolve_dims(d.dims, model);
  v.decl = &d;
  v.indices = d.indices;
  v.auto_dim = d.auto_dim;
  if (d.memory != MemoryKind::Dynamic) v.link = d.ref.value_or(d.name);
  if (!v.link.empty() && v.shape.empty() && d.indices.empty() && !model.find_tensor(v.link) &&
      model.find_metadata(v.link))
    v.metadata_init = metadata_scalar_value(model, v.link);
  const uint64_t entry_bytes = bytes_of(d.dtype, v.shape, d.name);
  switch (d.memory) {
    case MemoryKind::Dynamic:
      v.storage = Storage::Dynamic;
      break;
    case MemoryKind::Constant:
      v.storage = Storage::Constant;
      break;
    case MemoryKind::Volatile:
      v.storage = Storage::Step;
      break;
    case MemoryKind::Persistent:
      v.storage = Storage::Persistent;
      break;
  }
  if (!d.indices.empty() && d.memory != MemoryKind::Persistent) {
    // prefix table: its entries are the model's
    v.entries = count_prefix_entries(d, model, v.extents);
  } else if (!d.indices.empty() || !d.auto_dim.empty()) {
    bool all_fixed = d.auto_dim.empty();
    for (const std::string& idx : d.indices) {
      v.bound.push_back(fixed_bound(d, idx, model));
      if (v.bound.back())
        v.entries *= *v.bound.back();
      else
        all_fixed = false;
    }
    if (!all_fixed) v.storage = Storage::Runtime;
  }
  if (v.storage == Storage::Runtime) {
    v.bytes = entry_bytes;  // one entry; the count is known at run time
  } else {
    if (v.entries != 0 && entry_bytes > UINT64_MAX / v.entries)
      throw input_error("the size of '" + d.name + "' overflows 64 bits");
    v.bytes = entry_bytes * v.entries;
  }
  v.unfused_bytes = v.bytes;
  return v;
}

}  // namespace

void resolve_values(Context& c) {
  const Model& model = c.plan.model;
  for (const VarDecl& d : c.graph.decls) {
    c.value_index[d.name] = c.plan.values.size();
    c.plan.values.push_back(declared_value(d, model));
  }
  const Block* entry = c.graph.find_block("entry");
  if (!entry) return;
  for (const Node& n : entry->nodes) {
    if (n.kind != NodeKind::Assign) continue;
    PlanValue v;
    v.name = n.var;
    v.memory = "temporary";
    v.dtype = n.dtype;
    v.shape = resolve_dims(n.dims, model);
    // Kept for fetching: step memory, zeroed at the start of every step as assign says.
    const bool kept = std::find(c.keep.begin(), c.keep.end(), n.var) != c.keep.end();
    v.storage = kept ? Storage::Step : Storage::Arena;
    v.bytes = v.unfused_bytes = bytes_of(n.dtype, v.shape, n.var);
    c.value_index[n.var] = c.plan.values.size();
    c.plan.values.push_back(std::move(v));
  }
  for (const std::string& name : c.keep)
    if (!c.value(name)) {
      std::string temporaries;
      for (const PlanValue& v : c.plan.values)
        if (!v.decl) temporaries += (temporaries.empty() ? "" : ", ") + v.name;
      throw input_error(
          "--fetchable '" + name + "': the graph has no variable or temporary '" + name +
          "' (its temporaries: " + (temporaries.empty() ? "none" : temporaries) + ")");
    }
}

}  // namespace oi::synth
