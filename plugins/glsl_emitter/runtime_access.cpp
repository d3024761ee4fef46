// The output access of kernels of run-time length: reshape and acc= (runtime_access.hpp).
#include "runtime_access.hpp"

namespace oi::glsl {

namespace json = boost::json;

std::optional<std::vector<uint64_t>> recorded_result_shape(
    const OpIn& op, const std::vector<std::vector<uint64_t>>& in,
    const std::vector<uint64_t>* plain, std::string& why, bool* words) {
  if (op.shape_rule != "reshape") return rule_result_shape(op, in, why, words);
  if (words) *words = false;
  if (in.empty()) {
    why = "op 'reshape' without an input";
    return std::nullopt;
  }
  return plain ? *plain : in.front();
}

json::object output_access(const OpIn& op, bool matrix, bool entries) {
  const ValueRef r = parse_ref(op.output);
  json::object a{{"to", r.name}, {"store_at", op.output_at}};
  if (matrix) a["auto_to"] = json::array(r.index.begin(), r.index.end());
  if (entries) a["to_entry"] = json::array(r.index.begin(), r.index.end());
  return a;
}

json::object runtime_access(const OpIn& op, const RuntimeOperand& ro) {
  const bool reshape = op.shape_rule == "reshape";
  const bool acc = op.settings.contains("acc") && !ro.output.empty();
  if (!reshape && !acc) return {};
  json::object a = ro.access;
  a["kind"] = reshape ? "reshape" : "acc";
  a["op"] = op.op;
  a["at"] = op.at;
  if (reshape) a["input"] = ro.inputs.front();
  if (!ro.output.empty()) a["result"] = ro.output;
  if (acc) a["spreads"] = op.shape_rule == "broadcast" && op.broadcast;
  return a;
}

json::object same_length(const OpIn& op, const RuntimeOperand& ro) {
  if (ro.inputs.size() < 2) return {};
  json::array operands;
  for (const std::string& in : op.inputs) operands.emplace_back(parse_ref(in).name);
  return json::object{{"inputs", json::array(ro.inputs.begin(), ro.inputs.end())},
                      {"operands", std::move(operands)},
                      {"rule", op.shape_rule},
                      {"broadcast", op.broadcast},
                      {"op", op.op}};
}

}  // namespace oi::glsl
