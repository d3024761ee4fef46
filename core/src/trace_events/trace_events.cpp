// Chrome trace-event JSON from executed-node events (see trace_events.hpp).
#include "openinfer/trace_events.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace oi {
namespace {

constexpr int kPid = 1;

// A node's place on the time line, in nanoseconds.
struct Span {
  int64_t start = 0;
  int64_t end = 0;
};

// Recorded times when any event has them; otherwise one microsecond per node in order.
std::vector<Span> layout(std::span<const ExecEvent> events) {
  const bool timed = std::any_of(events.begin(), events.end(), [](const ExecEvent& e) {
    return e.start_ns != 0 || e.end_ns != 0;
  });
  std::vector<Span> spans(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    if (timed) {
      spans[i] = {events[i].start_ns, std::max(events[i].start_ns, events[i].end_ns)};
    } else {
      const auto t = static_cast<int64_t>(i) * 1000;
      spans[i] = {t, t + 1000};
    }
  }
  return spans;
}

double micros(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

boost::json::object metadata(std::string_view name, uint32_t tid, boost::json::object args) {
  boost::json::object m;
  m["name"] = name;
  m["ph"] = "M";
  m["pid"] = kPid;
  m["tid"] = tid;
  m["args"] = std::move(args);
  return m;
}

boost::json::object complete(std::string_view name, std::string_view cat, uint32_t tid,
                             const Span& s, boost::json::object args) {
  boost::json::object x;
  x["name"] = name;
  x["cat"] = cat;
  x["ph"] = "X";
  x["ts"] = micros(s.start);
  x["dur"] = micros(s.end - s.start);
  x["pid"] = kPid;
  x["tid"] = tid;
  x["args"] = std::move(args);
  return x;
}

// The node's fields of the `--trace` JSON (one shared definition of params/output).
boost::json::object node_args(const ExecEvent& ev) {
  boost::json::array one = trace_to_json(std::span<const ExecEvent>(&ev, 1));
  boost::json::object& t = one.at(0).as_object();
  boost::json::object args;
  for (const char* key :
       {"block_name", "node_index", "node_uuid", "kind", "op_name", "backend", "declined_by",
        "decline_reason", "params", "output", "step", "iteration", "scope"}) {
    if (auto* v = t.if_contains(key)) args[key] = *v;
  }
  return args;
}

}  // namespace

boost::json::object trace_events_to_json(std::span<const ExecEvent> events,
                                         const TraceEventsOptions& options) {
  const std::vector<Span> spans = layout(events);
  boost::json::array out;

  // Tracks: entry is 0; a consumer track is named after the block that runs on it.
  std::map<uint32_t, std::string> tracks{{0, "entry"}};
  for (const ExecEvent& ev : events) tracks.emplace(ev.track, std::string(ev.block));
  out.push_back(metadata("process_name", 0, {{"name", options.process_name}}));
  for (const auto& [track, name] : tracks) {
    out.push_back(metadata("thread_name", track, {{"name", name}}));
    out.push_back(metadata("thread_sort_index", track, {{"sort_index", track}}));
  }

  // Steps: the extent of each step's nodes, repeated on every track it used.
  struct StepExtent {
    Span span{INT64_MAX, INT64_MIN};
    std::set<uint32_t> tracks;
  };
  std::map<uint64_t, StepExtent> steps;
  for (size_t i = 0; i < events.size(); ++i) {
    StepExtent& s = steps[events[i].step];
    s.span.start = std::min(s.span.start, spans[i].start);
    s.span.end = std::max(s.span.end, spans[i].end);
    s.tracks.insert(events[i].track);
  }
  for (const auto& [step, extent] : steps) {
    for (uint32_t track : extent.tracks) {
      out.push_back(
          complete("step " + std::to_string(step), "step", track, extent.span, {{"step", step}}));
    }
  }

  // Scopes (dsl.md "Scopes"): one slice per entry into a scope, spanning its nodes, so that
  // the viewer nests nodes in scopes in steps. Outer scopes first, then in order of entry.
  struct ScopeExtent {
    Span span{INT64_MAX, INT64_MIN};
    size_t depth = 0;
    std::string_view name, path;
  };
  std::map<std::tuple<uint64_t, uint32_t, uint64_t>, ScopeExtent> scopes;  // step, track, instance
  for (size_t i = 0; i < events.size(); ++i) {
    const ExecEvent& ev = events[i];
    for (size_t d = 0; d < ev.scopes.size(); ++d) {
      ScopeExtent& s = scopes[{ev.step, ev.track, ev.scopes[d].instance}];
      s.span.start = std::min(s.span.start, spans[i].start);
      s.span.end = std::max(s.span.end, spans[i].end);
      s.depth = d;
      s.name = ev.scopes[d].name;
      s.path = ev.scopes[d].path;
    }
  }
  std::vector<std::pair<std::tuple<uint64_t, uint32_t, uint64_t>, const ScopeExtent*>> ordered;
  for (const auto& [key, extent] : scopes) ordered.emplace_back(key, &extent);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.second->depth < b.second->depth; });
  for (const auto& [key, extent] : ordered) {
    out.push_back(complete(extent->name, "scope", std::get<1>(key), extent->span,
                           {{"scope", extent->path}, {"step", std::get<0>(key)}}));
  }

  for (size_t i = 0; i < events.size(); ++i) {
    const ExecEvent& ev = events[i];
    boost::json::object args = node_args(ev);
    const std::string name =
        ev.op_name.empty() ? args.at("kind").as_string().c_str() : std::string(ev.op_name);
    out.push_back(complete(name, "node", ev.track, spans[i], std::move(args)));
  }

  boost::json::object doc;
  doc["traceEvents"] = std::move(out);
  doc["displayTimeUnit"] = "ns";
  return doc;
}

}  // namespace oi
