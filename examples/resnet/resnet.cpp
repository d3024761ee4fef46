// ResNet-18 (examples/resnet/resnet.oi) through the C++ API: classifies the images of an input
// package, checks the logits against PyTorch's (export_resnet.py) and times images/s.
//
//   resnet_example --model MODEL.oinf --input INPUT.oinf [--reference REFERENCE.oinf]
//                  [--graph resnet.oi] [--runs N] [--backend cpu] [--plugin-dir DIR]
//
// With --reference: max |got - want| <= 1e-4 * max |want| over all logits and, for every image,
// the same five top classes in the same order; prints "ok: ..." and exits 0, else exits 1.
// With --runs N (N > 0): one warm-up step, then N timed steps; prints the median and best step
// time and images/s (batch B / median step time).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace {

struct Options {
  std::string model, input, reference, backend = "cpu";
  std::string graph = OPENINFER_SOURCE_DIR "/examples/resnet/resnet.oi";
  std::vector<std::string> plugin_dirs;
  int runs = 0;
};

int usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s --model MODEL.oinf --input INPUT.oinf [--reference REF.oinf] "
               "[--graph resnet.oi] [--runs N] [--backend cpu] [--plugin-dir DIR]\n",
               prog);
  return 2;
}

// The indices of the `k` largest values of row `r` of a [rows, n] matrix, largest first.
std::vector<size_t> top_k(const std::vector<float>& m, size_t n, size_t r, size_t k) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  k = std::min(k, n);
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](size_t a, size_t b) { return m[r * n + a] > m[r * n + b]; });
  idx.resize(k);
  return idx;
}

// Prints the comparison; true when the logits match the reference as the README says.
bool check(const oi::Tensor& got_t, const oi::Tensor& want_t) {
  if (got_t.shape() != want_t.shape()) {
    std::cout << "FAIL: logits " << oi::shape_to_string(got_t.shape()) << ", reference "
              << oi::shape_to_string(want_t.shape()) << "\n";
    return false;
  }
  const auto gs = got_t.as<float>(), ws = want_t.as<float>();
  const std::vector<float> got(gs.begin(), gs.end()), want(ws.begin(), ws.end());
  double max_diff = 0, max_want = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    max_diff = std::max(max_diff, std::abs(double(got[i]) - double(want[i])));
    max_want = std::max(max_want, std::abs(double(want[i])));
  }
  const size_t rows = got_t.shape()[0], n = got_t.shape()[1];
  size_t same_top5 = 0;
  for (size_t r = 0; r < rows; ++r) same_top5 += top_k(got, n, r, 5) == top_k(want, n, r, 5);
  const bool ok = max_diff <= 1e-4 * max_want && same_top5 == rows;
  std::printf(
      "%s: max |d| = %.3g (%.3g of max |reference| %.4g, limit 1e-4); top-5 classes in "
      "order equal for %zu of %zu images\n",
      ok ? "ok" : "FAIL", max_diff, max_want > 0 ? max_diff / max_want : 0.0, max_want, same_top5,
      rows);
  for (size_t r = 0; r < std::min<size_t>(rows, 4); ++r) {
    std::printf("  image %zu top-5:", r);
    for (size_t c : top_k(got, n, r, 5)) std::printf(" %zu", c);
    std::printf("\n");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(argv[0]);
    const std::string v = argv[++i];
    if (a == "--model") {
      opt.model = v;
    } else if (a == "--input") {
      opt.input = v;
    } else if (a == "--reference") {
      opt.reference = v;
    } else if (a == "--graph") {
      opt.graph = v;
    } else if (a == "--runs") {
      opt.runs = std::stoi(v);
    } else if (a == "--backend") {
      opt.backend = v;
    } else if (a == "--plugin-dir") {
      opt.plugin_dirs.push_back(v);
    } else {
      return usage(argv[0]);
    }
  }
  if (opt.model.empty() || opt.input.empty()) return usage(argv[0]);
  try {
    const oi::Model model = oi::Model::open(opt.model);
    const oi::Graph graph = oi::Graph::load(opt.graph);
    const auto registry = oi::PluginRegistry::discover(
        oi::plugin_search_path(opt.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
    const oi::Simulator sim(model, graph, registry.backend(opt.backend));
    oi::Executor exec = sim.make_executor();
    const oi::Tensor image = oi::Model::open(opt.input).tensor("image");
    const uint64_t batch = model.size_of("B");
    std::printf("resnet: batch %llu, width %llu, %llux%llu input, %llu classes, backend %s\n",
                static_cast<unsigned long long>(batch),
                static_cast<unsigned long long>(model.size_of("C")),
                static_cast<unsigned long long>(32 * model.size_of("S")),
                static_cast<unsigned long long>(32 * model.size_of("S")),
                static_cast<unsigned long long>(model.size_of("K")), opt.backend.c_str());
    exec.insert("image", image);
    exec.step();
    bool ok = true;
    if (!opt.reference.empty())
      ok = check(exec.fetch("logits"), oi::Model::open(opt.reference).tensor("logits"));
    if (opt.runs > 0) {
      std::vector<double> ms;
      for (int r = 0; r < opt.runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        exec.insert("image", image);
        exec.step();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      const double median = ms[ms.size() / 2];
      std::printf(
          "{\"impl\":\"openinfer\",\"batch\":%llu,\"median_ms\":%.3f,\"min_ms\":%.3f,"
          "\"runs\":%d,\"images_per_s\":%.2f}\n",
          static_cast<unsigned long long>(batch), median, ms.front(), opt.runs,
          1000.0 * static_cast<double>(batch) / median);
    }
    return ok ? 0 : 1;
  } catch (const oi::Error& e) {
    if (!e.where().empty()) std::cerr << e.where() << ": ";
    std::cerr << "error: " << e.what() << "\n" << e.context();
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}
