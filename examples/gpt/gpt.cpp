// The GPT-2-style decoder of examples/gpt/gpt.oi through the C++ API: greedy decoding of
// --steps tokens after the model's prompt, with tokens per second, optionally checked against
// PyTorch's reference (export_gpt.py --reference). `openinfer run examples/gpt/gpt.oi --model
// MODEL --steps N` runs the same steps.
//
//   gpt_example --model MODEL.oinf [--graph GRAPH.oi] [--steps N] [--backend cpu|vulkan]
//               [--reference REF.oinf] [--trace-events FILE.json] [--warm-up] [--quiet]
//
// --warm-up runs the prompt step once on an executor of its own first, so that the timed
// prompt does not include the backend's one-time costs (shader pipelines, first allocations).
#include <chrono>
#include <cstdint>
#include <ctime>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "gpt_check.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"
#include "openinfer/trace_events.hpp"

namespace {

struct Options {
  std::string model, graph = OPENINFER_SOURCE_DIR "/examples/gpt/gpt.oi", backend = "cpu";
  std::string reference, trace_events;
  uint64_t steps = 32;
  bool quiet = false;
  bool warm_up = false;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "error: " << problem << "\n"
            << "usage: gpt_example --model MODEL.oinf [--graph GRAPH.oi] [--steps N] "
               "[--backend cpu|vulkan] [--reference REF.oinf] [--trace-events FILE.json] "
               "[--warm-up] [--quiet]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--model") {
      o.model = value();
    } else if (arg == "--graph") {
      o.graph = value();
    } else if (arg == "--backend") {
      o.backend = value();
    } else if (arg == "--reference") {
      o.reference = value();
    } else if (arg == "--trace-events") {
      o.trace_events = value();
    } else if (arg == "--steps") {
      const std::string v = value();
      try {
        size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used != v.size() || n < 1) throw std::invalid_argument(v);
        o.steps = static_cast<uint64_t>(n);
      } catch (const std::exception&) {
        usage("--steps needs an integer >= 1, got '" + v + "'");
      }
    } else if (arg == "--warm-up") {
      o.warm_up = true;
    } else if (arg == "--quiet" || arg == "-q") {
      o.quiet = true;
    } else {
      usage("unknown argument '" + arg + "'");
    }
  }
  if (o.model.empty()) usage("--model is required");
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  try {
    const oi::Model model = oi::Model::open(opt.model);
    const oi::Graph graph = oi::Graph::load(opt.graph);
    const uint64_t prompt_len = model.size_of("P"), context = model.size_of("T");
    // Step 0 fills P positions, every later step one more.
    if (prompt_len + opt.steps - 1 > context) {
      std::cerr << "error: " << opt.steps << " steps need " << prompt_len + opt.steps - 1
                << " positions (prompt " << prompt_len << " + steps - 1), but the model's "
                << "context T is " << context << "\n";
      return 1;
    }

    const auto registry =
        oi::PluginRegistry::discover(oi::plugin_search_path({}, OPENINFER_BUILD_PLUGIN_DIR));
    oi::SimulatorOptions sim_opt;
    if (opt.backend != "cpu") sim_opt.fallback = registry.backend("cpu");  // ops it lacks
    const oi::Simulator sim(model, graph, registry.backend(opt.backend), sim_opt);
    if (!opt.quiet)
      for (const auto& w : sim.warnings()) std::cerr << "warning: " << w << "\n";
    if (opt.warm_up) sim.make_executor().step();
    oi::Executor exec = sim.make_executor();
    exec.set_timing(!opt.trace_events.empty());

    std::vector<int64_t> generated;
    std::vector<oi::ExecEvent> events;
    double prefill_s = 0, decode_s = 0, decode_cpu_s = 0;
    for (uint64_t s = 0; s < opt.steps; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      exec.step();
      (s == 0 ? prefill_s : decode_s) += seconds_since(t0);
      if (s > 0) decode_cpu_s += double(std::clock() - c0) / CLOCKS_PER_SEC;
      generated.push_back(exec.fetch<int64_t>("next")[0]);
      if (!opt.trace_events.empty())
        events.insert(events.end(), exec.events().begin(), exec.events().end());
    }

    if (!opt.quiet) {
      const auto prompt = model.tensor("prompt");
      std::cout << "prompt:";
      for (uint64_t i = 0; i < prompt.numel(); ++i) std::cout << " " << prompt.get_int(i);
      std::cout << "\ngenerated:";
      for (int64_t t : generated) std::cout << " " << t;
      std::cout << "\n";
    }
    // Step 0 runs P positions and picks one token; each later step runs one position.
    std::cout << "backend " << opt.backend << ": step 0 (prompt of " << prompt_len << ") "
              << prefill_s * 1e3 << " ms, " << prompt_len / prefill_s << " positions/s; decode "
              << opt.steps - 1 << " tokens " << decode_s * 1e3 << " ms, "
              << (opt.steps > 1 ? (opt.steps - 1) / decode_s : 0.0) << " tokens/s, "
              << (opt.steps > 1 ? decode_cpu_s * 1e3 / (opt.steps - 1) : 0.0)
              << " CPU ms/token (all threads)\n";

    if (!opt.trace_events.empty()) {
      std::ofstream f(opt.trace_events);
      f << boost::json::serialize(oi::trace_events_to_json(events)) << "\n";
      if (!f) throw std::runtime_error("cannot write " + opt.trace_events);
    }
    if (!opt.reference.empty()) {
      const oi::Model ref = oi::Model::open(opt.reference);
      const auto r = gpt::check_against_reference(exec.fetch("logits_at"), exec.fetch("tokens"),
                                                  generated, ref);
      std::cout << r.report;
      return r.ok ? 0 : 1;
    }
    return 0;
  } catch (const oi::Error& e) {
    if (!e.where().empty()) std::cerr << e.where() << ": ";
    std::cerr << "error: " << e.what() << "\n" << e.context();
    return static_cast<int>(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
