// Summaries, timing table and output files of `openinfer run`.
#include "run_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"
#include "openinfer/oinf_text.hpp"

namespace oi::cli {

std::string summarize(const std::string& name, const Tensor& value, size_t max_values) {
  std::ostringstream s;
  s << name << ": " << dtype_name(value.dtype());
  if (value.rank() == 0) {
    s << " = " << format_element(value.dtype(), value.get_raw(0));
    return s.str();
  }
  s << shape_to_string(value.shape()) << " = {";
  const uint64_t shown = std::min<uint64_t>(value.numel(), max_values);
  for (uint64_t i = 0; i < shown; ++i)
    s << (i ? ", " : " ") << format_element(value.dtype(), value.get_raw(i));
  if (value.numel() > shown) s << ", ...";
  s << (shown ? " }" : "}");
  return s.str();
}

namespace {

// Where a node's calls ran: "vulkan"; "cpu (declined by vulkan)" when every call was declined
// there; "vulkan, cpu (1 of 3 calls declined by vulkan)" when some were.
std::string placement(const std::vector<std::pair<std::string, uint64_t>>& backends,
                      const std::vector<std::pair<std::string, uint64_t>>& declined,
                      uint64_t calls) {
  std::string text;
  for (const auto& [name, n] : backends) text += (text.empty() ? "" : ", ") + name;
  std::string why;
  for (const auto& [name, n] : declined) {
    why += why.empty() ? " (" : "; ";
    if (n != calls) why += std::to_string(n) + " of " + std::to_string(calls) + " calls ";
    why += "declined by " + name;
  }
  return text + (why.empty() ? "" : why + ")");
}

void count(std::vector<std::pair<std::string, uint64_t>>& list, std::string_view name) {
  for (auto& [n, k] : list) {
    if (n == name) {
      ++k;
      return;
    }
  }
  list.emplace_back(std::string(name), 1);
}

}  // namespace

// Time per scope (dsl.md "Scopes"): the sum of its nodes' times, nested scopes' nodes included;
// entries count how often the scope was entered (once per loop iteration for a scope inside a
// loop body). Nothing when no node ran in a scope.
static void print_scope_rows(std::ostream& out, std::span<const ExecEvent> events) {
  struct Row {
    std::string block, path;
    std::set<std::tuple<uint64_t, uint32_t, uint64_t>> entries;  // step, track, instance
    int64_t total_ns = 0;
  };
  std::vector<Row> rows;
  std::map<std::pair<std::string, std::string>, size_t> where;
  for (const ExecEvent& ev : events) {
    for (const ExecScope& scope : ev.scopes) {
      auto key = std::make_pair(std::string(ev.block), std::string(scope.path));
      auto [it, fresh] = where.emplace(key, rows.size());
      if (fresh) rows.push_back(Row{key.first, key.second, {}, 0});
      Row& r = rows[it->second];
      r.entries.insert({ev.step, ev.track, scope.instance});
      r.total_ns += ev.duration_ns();
    }
  }
  if (rows.empty()) return;
  out << "  scopes:\n";
  out << "  " << std::left << std::setw(12) << "block" << std::setw(23) << "scope" << std::right
      << std::setw(7) << "entries" << std::setw(12) << "total" << std::setw(12) << "mean"
      << "\n";
  for (const Row& r : rows) {
    const double total = static_cast<double>(r.total_ns) / 1000.0;
    const auto entries = static_cast<double>(r.entries.size());
    out << "  " << std::left << std::setw(12) << r.block << std::setw(23) << r.path << std::right
        << std::setw(7) << r.entries.size() << std::setw(12) << total << std::setw(12)
        << total / entries << "\n";
  }
}

void print_timing_table(std::ostream& out, std::span<const ExecEvent> events, uint64_t steps) {
  struct Row {
    std::string block, kind, op;
    uint32_t index = 0;
    uint64_t calls = 0;
    int64_t total_ns = 0;
    std::vector<std::pair<std::string, uint64_t>> backends, declined;  // in order of first use
  };
  std::vector<Row> rows;
  std::map<std::pair<std::string, uint32_t>, size_t> where;
  std::map<uint64_t, std::pair<int64_t, int64_t>> step_extent;  // first start, last end
  for (const ExecEvent& ev : events) {
    auto key = std::make_pair(std::string(ev.block), ev.node_index);
    auto [it, fresh] = where.emplace(key, rows.size());
    if (fresh) {
      Row row;
      row.block = key.first;
      row.kind = node_kind_name(ev.kind);
      row.op = ev.op_name;
      row.index = ev.node_index;
      rows.push_back(std::move(row));
    }
    Row& r = rows[it->second];
    r.calls += 1;
    r.total_ns += ev.duration_ns();
    if (!ev.backend.empty()) count(r.backends, ev.backend);
    if (!ev.declined_by.empty()) count(r.declined, ev.declined_by);
    auto [ext, first] = step_extent.emplace(ev.step, std::make_pair(ev.start_ns, ev.end_ns));
    if (!first) {
      ext->second.first = std::min(ext->second.first, ev.start_ns);
      ext->second.second = std::max(ext->second.second, ev.end_ns);
    }
  }
  out << "timing (" << steps << (steps == 1 ? " step" : " steps") << ", microseconds):\n";
  out << "  " << std::left << std::setw(12) << "block" << std::right << std::setw(5) << "node"
      << "  " << std::left << std::setw(16) << "op" << std::right << std::setw(7) << "calls"
      << std::setw(12) << "total" << std::setw(12) << "mean"
      << "  backend\n";
  out << std::fixed << std::setprecision(3);
  for (const Row& r : rows) {
    const double total = static_cast<double>(r.total_ns) / 1000.0;
    out << "  " << std::left << std::setw(12) << r.block << std::right << std::setw(5) << r.index
        << "  " << std::left << std::setw(16) << (r.op.empty() ? r.kind : r.op) << std::right
        << std::setw(7) << r.calls << std::setw(12) << total << std::setw(12)
        << total / static_cast<double>(r.calls);
    const std::string placed = placement(r.backends, r.declined, r.calls);
    out << (placed.empty() ? "" : "  " + placed) << "\n";
  }
  print_scope_rows(out, events);
  // Wall time, not the sum of rows: consumer blocks run beside entry and loops enclose bodies.
  int64_t wall_ns = 0;
  for (const auto& [step, ext] : step_extent) wall_ns += ext.second - ext.first;
  out << "  wall time of the steps: " << static_cast<double>(wall_ns) / 1000.0 << " us\n";
  out << std::defaultfloat << std::setprecision(6);
}

void save_fetched(const std::string& path, const std::vector<FetchedValue>& values,
                  uint64_t steps) {
  ModelWriter writer;
  std::map<std::string, const Tensor*> last;
  for (const FetchedValue& v : values) {
    if (steps > 1) writer.add_tensor(v.name + ".step" + std::to_string(v.step), v.value);
    last[v.name] = &v.value;
  }
  for (const auto& [name, value] : last) writer.add_tensor(name, *value);
  writer.write(path);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error("cannot write '" + path + "': " + std::strerror(errno));
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw input_error("cannot write '" + path + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw input_error("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace oi::cli
