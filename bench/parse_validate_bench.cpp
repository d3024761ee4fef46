// Front-end cost of a large graph: Graph::parse + validate_graph (level 1) of a generated graph
// of about 10,000 nodes (elementwise ops with settings, matmuls, loops over layers with cache
// reads/writes of persistent tables, counter updates). Prints the median of several runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/validate.hpp"

namespace {

constexpr int kTemps = 64;  // assigned f32[B, D] temporaries the ops cycle through

std::string temp(int i) {
  return "t" + std::to_string(i % kTemps);
}

// One chunk is 10 nodes: 4 ops, a loop of 5 nodes (ops and cache operations), an increment.
std::string chunk(int i) {
  const std::string a = temp(i), b = temp(i + 1), c = temp(i + 2);
  std::string s;
  s += "  op add(" + a + ", bias) >> " + b + ";\n";
  s += "  op mul(" + b + ", " + a + ") >> " + b + ";\n";
  s += "  op relu(" + b + ", negative_slope=0.01, clamp_max=6.0) >> " + b + ";\n";
  s += "  op matmul(" + b + ", w) >> " + c + ";\n";
  s += "  loop layers" + std::to_string(i) + " (l in 0..num_layers) {\n";
  s += "    op matmul(" + c + ", W[l]) >> " + c + ";\n";
  s += "    cache.read K[l, step] >> " + a + ";\n";
  s += "    op sub(" + c + ", " + a + ") >> " + c + ";\n";
  s += "    cache.write " + c + " >> V[l, step];\n";
  s += "  }\n";
  s += "  cache.increment step;\n";
  return s;
}

std::string make_graph(int chunks) {
  std::string s =
      "dynamic { x: f32[B, D]; }\n"
      "constant {\n  w: f32[D, D];\n  bias: f32[B, D];\n  W(l): f32[D, D] @pattern(\"W.{l}\");\n}\n"
      "persistent {\n  step: i32 @init(0);\n  K(l, t): f32[B, D] @table;\n"
      "  V(l, t): f32[B, D] @table;\n}\n"
      "volatile { y: f32[B, D]; }\n\nblock entry {\n";
  for (int i = 0; i < kTemps; ++i) s += "  assign " + temp(i) + ": f32[B, D];\n";
  s += "  op matmul(x, w) >> t0;\n";
  for (int i = 0; i < chunks; ++i) s += chunk(i);
  s += "  op add(" + temp(chunks) + ", bias) >> y;\n  return y;\n}\n";
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// This thread's CPU time: what the work costs when other processes share the cores.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::stoi(argv[1]) : 15;
  // 64 assigns + 2 ops + 999 chunks of 10 nodes + return = 10,057 nodes.
  const std::string text = make_graph(999);

  std::vector<double> parse_ms, validate_ms, total_ms, total_cpu_ms;
  size_t nodes = 0;
  for (int r = 0; r < runs + 1; ++r) {  // run 0 warms caches and the catalog; not counted
    const double cpu_start = cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    const oi::Graph graph = oi::Graph::parse(text, "bench.oi");
    const double parsed = ms_since(start);
    const oi::Diagnostics diag = oi::validate_graph(graph);
    const double total = ms_since(start);
    const double total_cpu = cpu_ms() - cpu_start;
    if (!diag.ok()) {
      std::fprintf(stderr, "the generated graph does not validate:\n%s", diag.format().c_str());
      return 1;
    }
    nodes = graph.node_count();
    if (r == 0) continue;
    parse_ms.push_back(parsed);
    validate_ms.push_back(total - parsed);
    total_ms.push_back(total);
    total_cpu_ms.push_back(total_cpu);
  }
  std::printf("graph: %zu nodes, %zu bytes of DSL\n", nodes, text.size());
  std::printf("median of %d runs: parse %.2f ms + validate %.2f ms = %.2f ms (target < 50 ms)\n",
              runs, median(parse_ms), median(validate_ms), median(total_ms));
  std::printf("median CPU time of the thread: %.2f ms\n", median(total_cpu_ms));
  // Judged on CPU time: on a shared machine the wall time mostly measures the other processes.
  return median(total_cpu_ms) < 50.0 ? 0 : 2;
}
