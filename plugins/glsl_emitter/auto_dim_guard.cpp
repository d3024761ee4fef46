// Guards of ops reading a grown @auto_dim matrix whose shape the static output pins
// (auto_dim_guard.hpp).
#include "auto_dim_guard.hpp"

#include <algorithm>

namespace oi::glsl {

namespace json = boost::json;

namespace {

json::array dims_json(const std::vector<uint64_t>& d) {
  return json::array(d.begin(), d.end());
}

}  // namespace

std::optional<json::object> runtime_operand_guard(const PlanIn& plan, const KernelIn& k,
                                                  const OpIn& op, size_t j,
                                                  const std::vector<uint64_t>& declared,
                                                  size_t grows, std::string& why) {
  const bool head =
      !k.ops.empty() && &k.ops.front() == &op && (k.kind == "matmul" || k.kind == "reduction");
  if (k.ops.size() != 1 && !head) {
    why = "an op fused with others in kernel " + std::to_string(k.id);
    return std::nullopt;
  }
  const ValueRef out = parse_ref(op.output);
  const auto oit = plan.value_index.find(out.name);
  if (!out.index.empty() || out.all || oit == plan.value_index.end() ||
      plan.values[oit->second].is_table() || plan.values[oit->second].is_auto_dim()) {
    why = "an output '" + op.output + "' that is not a plain value of static shape";
    return std::nullopt;
  }
  const std::vector<uint64_t>& target = plan.values[oit->second].shape;
  std::vector<std::vector<uint64_t>> in;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (i == j) {
      in.push_back(declared);
      continue;
    }
    const ValueRef r = parse_ref(op.inputs[i]);
    const auto it = plan.value_index.find(r.name);
    if (!r.index.empty() || r.all || it == plan.value_index.end() ||
        plan.values[it->second].is_table() || plan.values[it->second].is_auto_dim()) {
      why = "another operand '" + op.inputs[i] + "' that is not a plain value of static shape";
      return std::nullopt;
    }
    in.push_back(plan.values[it->second].shape);
  }
  json::object g{{"op", op.op},
                 {"operand", j},
                 {"output", out.name},
                 {"output_shape", dims_json(target)},
                 {"at", op.at}};
  json::array ins;
  for (const auto& d : in) ins.emplace_back(dims_json(d));
  g["inputs"] = std::move(ins);
  // free(a): axis a of the matrix may grow without changing the result's shape.
  auto pinned = [&](auto free) {
    for (size_t a = 0; a < grows && a < declared.size(); ++a)
      if (free(a)) {
        why = "axis " + std::to_string(a) +
              " of the matrix, which may grow without changing the "
              "shape of '" +
              op.op + "''s result";
        return false;
      }
    return true;
  };
  const size_t rank = declared.size();
  if (op.shape_rule == "broadcast") {  // the catalog's rule, as the plan gives it
    const bool bc = op.broadcast;
    g["rule"] = "broadcast";
    g["broadcast"] = bc;
    // A larger size gives the same result only where another operand's size there is larger
    // than 1 and the matrix's declared size 1 (broadcast either way).
    if (bc && !pinned([&](size_t a) {
          const size_t p = rank - 1 - a;
          for (size_t i = 0; i < in.size(); ++i)
            if (i != j && in[i].size() > p && in[i][in[i].size() - 1 - p] > 1 && declared[a] == 1)
              return true;
          return false;
        }))
      return std::nullopt;
    return g;
  }
  if (op.shape_rule == "matmul") {
    if (in.size() != 2 || in[0].size() < 2 || in[1].size() < 2) {
      why = "a matmul operand of rank below 2";
      return std::nullopt;
    }
    g["rule"] = "matmul";
    const std::vector<uint64_t>& other = in[1 - j];
    if (!pinned([&](size_t a) {
          if (a + 2 >= rank) return false;  // the rows/columns: the result's or the other's
          const size_t q = rank - 3 - a;    // a batch axis, counted from the last batch axis
          const uint64_t b = other.size() - 2 > q ? other[other.size() - 3 - q] : 1;
          return b > 1 && declared[a] == 1;
        }))
      return std::nullopt;
    return g;
  }
  if (op.op == "softmax" || op.op == "log_softmax") {
    g["rule"] = "same";
    return g;
  }
  why = "op '" + op.op + "', whose shape rule the host program does not evaluate";
  return std::nullopt;
}

}  // namespace oi::glsl
