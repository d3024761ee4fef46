// What one node reads and writes, and the text of its accesses (for the plan's JSON).
#include "plan_internal.hpp"

namespace oi::synth {
namespace {

void index_names(const Index& i, std::vector<std::string>& reads) {
  if (!i.is_literal()) reads.push_back(i.name);
}

void access_names(const Access& a, std::vector<std::string>& reads) {
  for (const Slot& s : a.slots) {
    if (s.kind == Slot::Kind::Index) index_names(s.index, reads);
    if (s.start) index_names(*s.start, reads);
    if (s.end) index_names(*s.end, reads);
  }
}

std::string index_text(const Index& i) {
  if (i.is_literal()) return std::to_string(i.offset);
  if (i.offset == 0) return i.name;
  return i.name + (i.offset > 0 ? "+" : "") + std::to_string(i.offset);
}

}  // namespace

void node_names(const Node& n, std::vector<std::string>& reads, std::vector<std::string>& writes) {
  for (const Ref& r : n.inputs) {
    reads.push_back(r.name);
    for (const Index& i : r.indices) index_names(i, reads);
  }
  for (const Setting& s : n.settings)
    if (s.value.kind == Value::Kind::Ident) reads.push_back(s.value.text);
  switch (n.kind) {
    case NodeKind::Op:
    case NodeKind::Transfer:
    case NodeKind::CacheRead:
      writes.push_back(n.output.name);
      access_names(n.output, reads);
      if (n.kind == NodeKind::CacheRead) {
        reads.push_back(n.target.name);
        access_names(n.target, reads);
      }
      // A part of a table or matrix written by an op keeps the rest: a read as well.
      if (n.kind == NodeKind::Op && n.output.has_brackets) reads.push_back(n.output.name);
      break;
    case NodeKind::CacheWrite:
      writes.push_back(n.target.name);
      reads.push_back(n.target.name);  // the other entries stay
      access_names(n.target, reads);
      break;
    case NodeKind::CacheIncrement:
    case NodeKind::CacheDecrement:
      reads.push_back(n.var);
      writes.push_back(n.var);
      break;
    case NodeKind::CacheReset:
      writes.push_back(n.target.name);
      access_names(n.target, reads);
      break;
    case NodeKind::Loop:
      for (const Bound* b : {&n.start, &n.end})
        if (b->is_name()) reads.push_back(b->name);
      break;
    case NodeKind::Branch:
      if (!n.cond.empty()) reads.push_back(n.cond);
      break;
    case NodeKind::Return:
    case NodeKind::Yield:
      reads.insert(reads.end(), n.names.begin(), n.names.end());
      break;
    case NodeKind::Await:
      writes.insert(writes.end(), n.names.begin(), n.names.end());
      break;
    default:
      break;
  }
}

std::string ref_text(const Ref& r) {
  std::string s = r.name;
  if (r.indices.empty()) return s;
  s += '[';
  for (size_t i = 0; i < r.indices.size(); ++i) s += (i ? ", " : "") + index_text(r.indices[i]);
  return s + ']';
}

std::string access_text(const Access& a) {
  std::string s = a.name;
  if (!a.has_brackets) return s;
  s += '[';
  for (size_t i = 0; i < a.slots.size(); ++i) {
    const Slot& slot = a.slots[i];
    if (i) s += ", ";
    if (slot.kind == Slot::Kind::Index) s += index_text(slot.index);
    if (slot.kind == Slot::Kind::Range) {
      if (slot.start) s += index_text(*slot.start);
      s += "..";
      if (slot.end) s += index_text(*slot.end);
    }
  }
  return s + ']';
}

std::string bound_text(const Bound& b) {
  return b.is_name() ? b.name : std::to_string(b.value);
}

}  // namespace oi::synth
