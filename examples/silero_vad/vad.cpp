// vad: prints the speech segments of a 16 kHz mono WAV file, found by Silero VAD v6 running as
// an OpenInfer graph (vad.oi) on the CPU backend, one 512-sample chunk per step.
//
//   vad [options] FILE.wav        (see --help; the model comes from fetch_and_export.sh)
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "segments.hpp"
#include "silero_stream.hpp"
#include "wav.hpp"

namespace {

constexpr const char* kUsage = R"(usage: vad [options] FILE.wav

Prints the speech segments of FILE.wav (16 kHz, mono), one per line: start and end in seconds.

options:
  --model FILE       the Silero VAD package (default: the one fetch_and_export.sh writes,
                     $OPENINFER_CACHE_DIR or ~/.cache/openinfer, silero_vad/silero_vad_16k.oinf)
  --graph FILE       the graph (default: examples/silero_vad/vad.oi of the source tree)
  --threshold P      speech probability that starts a segment (default 0.5)
  --probs            also print every chunk's probability: "chunk  time  probability"
  --json             print {"probabilities": [...], "segments": [...]} instead
  --progress         always show the progress bar on stderr (default: when stderr is a
                     terminal and the file is longer than 30 s); --no-progress never
  --threads N        CPU threads for the kernels (default: all cores)
  --repeat N         run the file N more times after the first and report the mean time per
                     chunk on stderr (a benchmark; the output is the first run's)
  -h, --help         this text
)";

struct Options {
  std::string wav;
  std::string model;
  std::string graph = OPENINFER_SOURCE_DIR "/examples/silero_vad/vad.oi";
  double threshold = 0.5;
  bool probs = false;
  bool json = false;
  std::optional<bool> progress;
  int threads = 0;
  int repeat = 0;
};

std::string default_model_path() {
  std::string cache;
  if (const char* dir = std::getenv("OPENINFER_CACHE_DIR"); dir && *dir) {
    cache = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    cache = std::string(xdg) + "/openinfer";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    cache = std::string(home) + "/.cache/openinfer";
  } else {
    cache = ".";
  }
  return cache + "/silero_vad/silero_vad_16k.oinf";
}

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "error: " << what << "\n(vad --help lists the options)\n";
  std::exit(2);
}

double parse_number(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  usage_error(flag + " needs a number, got '" + text + "'");
}

Options parse_args(int argc, char** argv) {
  Options o;
  o.model = default_model_path();
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) usage_error(a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--model") {
      o.model = value();
    } else if (a == "--graph") {
      o.graph = value();
    } else if (a == "--threshold") {
      o.threshold = parse_number(a, value());
      if (!(o.threshold > 0 && o.threshold < 1)) usage_error("--threshold must be in (0, 1)");
    } else if (a == "--probs") {
      o.probs = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--progress") {
      o.progress = true;
    } else if (a == "--no-progress") {
      o.progress = false;
    } else if (a == "--threads") {
      const double n = parse_number(a, value());
      if (n < 1 || n != static_cast<int>(n)) usage_error("--threads needs a positive integer");
      o.threads = static_cast<int>(n);
    } else if (a == "--repeat") {
      const double n = parse_number(a, value());
      if (n < 0 || n != static_cast<int>(n)) usage_error("--repeat needs an integer >= 0");
      o.repeat = static_cast<int>(n);
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option " + a);
    } else if (o.wav.empty()) {
      o.wav = a;
    } else {
      usage_error("more than one input file ('" + o.wav + "', '" + a + "')");
    }
  }
  if (o.wav.empty()) usage_error("no input file");
  return o;
}

// "[#########...........]  45%  12.3 s / 27.0 s" on stderr, redrawn at most once per percent.
class ProgressBar {
 public:
  ProgressBar(bool enabled, size_t total_chunks) : enabled_(enabled), total_(total_chunks) {}
  void update(size_t done) {
    if (!enabled_ || total_ == 0) return;
    const int percent = static_cast<int>(done * 100 / total_);
    if (percent == last_) return;
    last_ = percent;
    const int width = 40;
    const int filled = percent * width / 100;
    std::fprintf(stderr, "\r[%s%s] %3d%%  %.1f s / %.1f s", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), percent,
                 static_cast<double>(done * silero_vad::kChunk) / silero_vad::kSampleRate,
                 static_cast<double>(total_ * silero_vad::kChunk) / silero_vad::kSampleRate);
    if (done == total_) std::fputc('\n', stderr);
  }

 private:
  bool enabled_;
  size_t total_;
  int last_ = -1;
};

std::vector<float> run_stream(silero_vad::SileroStream& vad, const std::vector<float>& samples,
                              ProgressBar* bar) {
  const size_t chunks = (samples.size() + silero_vad::kChunk - 1) / silero_vad::kChunk;
  std::vector<float> probs;
  probs.reserve(chunks);
  vad.reset();
  for (size_t i = 0; i < chunks; ++i) {
    const size_t begin = i * silero_vad::kChunk;
    const size_t n = std::min(silero_vad::kChunk, samples.size() - begin);
    probs.push_back(vad.push(std::span<const float>(samples.data() + begin, n)));
    if (bar) bar->update(i + 1);
  }
  return probs;
}

void print_results(const Options& o, const std::vector<float>& probs,
                   const std::vector<silero_vad::Segment>& segments, size_t total_samples) {
  const double rate = silero_vad::kSampleRate;
  if (o.json) {
    std::printf("{\n \"samples\": %zu,\n \"chunk\": %zu,\n \"probabilities\": [", total_samples,
                silero_vad::kChunk);
    for (size_t i = 0; i < probs.size(); ++i)
      std::printf("%s\n  %.9g", i ? "," : "", static_cast<double>(probs[i]));
    std::printf("\n ],\n \"segments\": [");
    for (size_t i = 0; i < segments.size(); ++i)
      std::printf("%s\n  {\"start_sample\": %lld, \"end_sample\": %lld}", i ? "," : "",
                  static_cast<long long>(segments[i].start_sample),
                  static_cast<long long>(segments[i].end_sample));
    std::printf("\n ]\n}\n");
    return;
  }
  if (o.probs) {
    for (size_t i = 0; i < probs.size(); ++i)
      std::printf("chunk %5zu  %9.3f s  %.6f\n", i, i * silero_vad::kChunk / rate,
                  static_cast<double>(probs[i]));
  }
  for (const auto& s : segments)
    std::printf("%.3f %.3f\n", s.start_sample / rate, s.end_sample / rate);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  try {
    std::unique_ptr<tbb::global_control> threads;
    if (o.threads > 0)
      threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                      static_cast<size_t>(o.threads));

    const silero_vad::Audio audio = silero_vad::read_wav(o.wav);
    if (audio.sample_rate != silero_vad::kSampleRate)
      throw std::runtime_error(o.wav + ": " + std::to_string(audio.sample_rate) +
                               " Hz; the model needs 16000 Hz (sox IN.wav -r 16000 OUT.wav)");
    silero_vad::SileroStream vad(o.model, o.graph, OPENINFER_BUILD_PLUGIN_DIR);

    const size_t chunks = (audio.samples.size() + silero_vad::kChunk - 1) / silero_vad::kChunk;
    const bool long_file = audio.samples.size() > 30 * silero_vad::kSampleRate;
    ProgressBar bar(o.progress.value_or(long_file && isatty(STDERR_FILENO)), chunks);
    const std::vector<float> probs = run_stream(vad, audio.samples, &bar);

    if (o.repeat > 0 && chunks > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < o.repeat; ++r) run_stream(vad, audio.samples, nullptr);
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "openinfer: %.1f us per chunk (%d passes of %zu chunks; %s)\n",
                   us / (o.repeat * static_cast<double>(chunks)), o.repeat, chunks,
                   vad.device_name().c_str());
    }

    silero_vad::SegmentOptions seg;
    seg.threshold = o.threshold;
    const auto segments =
        silero_vad::speech_segments(probs, static_cast<int64_t>(audio.samples.size()), seg);
    print_results(o, probs, segments, audio.samples.size());
    return 0;
  } catch (const oi::Error& e) {
    if (!e.where().empty()) std::cerr << e.where() << ": ";
    std::cerr << "error: " << e.what() << "\n" << e.context();
    if (e.kind() == oi::ErrorKind::Input && !std::ifstream(o.model))
      std::cerr << "(no model at " << o.model
                << ": run examples/silero_vad/fetch_and_export.sh first)\n";
    return static_cast<int>(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
