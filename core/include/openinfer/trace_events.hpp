// Chrome trace-event export of executed nodes (cli.md `--trace-events`), for Perfetto and
// chrome://tracing:
//
//   std::vector<oi::ExecEvent> all;                       // gathered over several steps
//   boost::json::object doc = oi::trace_events_to_json(all);
//   // {"traceEvents": [...], "displayTimeUnit": "ns"}
//
// Every node is an "X" (complete) event on process 1; its tid is the event's track (0: entry,
// k: the k-th consumer block of yield/await), named by "M" thread_name metadata events. Each
// step is an enclosing "X" slice ("step N") on every track that ran in it. Timestamps and
// durations are microseconds. Events recorded without timing (all times zero) are laid out on a
// logical clock instead: one microsecond per node in execution order, so the order stays visible.
#pragma once

#include <boost/json/object.hpp>

#include <span>
#include <string>

#include "openinfer/simulator.hpp"

namespace oi {

struct TraceEventsOptions {
  std::string process_name = "openinfer";
};

// `events` in execution order, possibly spanning several steps (ExecEvent::step).
boost::json::object trace_events_to_json(std::span<const ExecEvent> events,
                                         const TraceEventsOptions& options = {});

}  // namespace oi
