// The trace JSON of cli.md "Trace files".
#include <boost/json.hpp>

#include "openinfer/simulator.hpp"

namespace oi {
namespace {

boost::json::array names(std::initializer_list<std::string_view> list) {
  boost::json::array out;
  for (std::string_view n : list)
    if (!n.empty()) out.emplace_back(n);
  return out;
}

boost::json::array names(const std::vector<std::string>& list) {
  boost::json::array out;
  for (const std::string& n : list) out.emplace_back(n);
  return out;
}

// params: what the node reads; output: what it writes.
std::pair<boost::json::array, boost::json::array> operands(const Node& n) {
  switch (n.kind) {
    case NodeKind::Assign:
      return {{}, names({n.var})};
    case NodeKind::Op: {
      boost::json::array in;
      for (const Ref& r : n.inputs) in.emplace_back(r.name);
      return {in, names({n.output.name})};
    }
    case NodeKind::Transfer:
      return {names({n.inputs.at(0).name}), names({n.output.name})};
    case NodeKind::CacheRead:
      return {names({n.target.name}), names({n.output.name})};
    case NodeKind::CacheWrite:
      return {names({n.inputs.at(0).name}), names({n.target.name})};
    case NodeKind::CacheIncrement:
    case NodeKind::CacheDecrement:
      return {{}, names({n.var})};
    case NodeKind::CacheReset:
      return {{}, names({n.target.name})};
    case NodeKind::Branch:
      return {names({n.cond}), {}};
    case NodeKind::Return:
    case NodeKind::Yield:
    case NodeKind::Await:
      return {names(n.names), {}};
    default:
      return {{}, {}};
  }
}

}  // namespace

boost::json::array trace_to_json(std::span<const ExecEvent> events) {
  boost::json::array out;
  for (const ExecEvent& ev : events) {
    boost::json::object o;
    o["block_name"] = ev.block;
    o["node_index"] = ev.node_index;
    o["node_uuid"] = ev.node_uuid;
    o["kind"] = ev.kind == NodeKind::Op ? std::string_view("OpExecute") : node_kind_name(ev.kind);
    auto [params, output] = operands(*ev.node);
    o["params"] = std::move(params);
    o["output"] = std::move(output);
    int64_t ns = ev.duration_ns();
    o["micros"] = boost::json::array{ns / 1000000, (ns / 1000) % 1000, ns % 1000};
    o["op_name"] = ev.op_name;
    if (!ev.backend.empty()) o["backend"] = ev.backend;
    if (!ev.declined_by.empty()) {
      o["declined_by"] = ev.declined_by;
      o["decline_reason"] = ev.decline_reason;
    }
    o["step"] = ev.step;
    if (ev.iteration >= 0) o["iteration"] = ev.iteration;
    if (!ev.scopes.empty()) o["scope"] = ev.scope();
    o["track"] = ev.track;
    o["thread"] = ev.thread;
    o["start_ns"] = ev.start_ns;
    o["end_ns"] = ev.end_ns;
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace oi
