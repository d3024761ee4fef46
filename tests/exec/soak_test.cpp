// Endless streams in bounded memory (docs/runtime.md "Table budget"), labelled `slow`: the
// Silero VAD for 100,000 steps, and the tiny GPT decoder with growable K/V tables stepped until
// the table budget refuses, reset and stepped again, cycle after cycle. Resident memory (RSS,
// /proc/self/statm) must stay within 1 MiB of its value once the stream has warmed up.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;

namespace {

constexpr int64_t kMiB = 1 << 20;

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The Silero VAD model package that examples/silero_vad/fetch_and_export.sh caches.
std::filesystem::path vad_model() {
  std::string cache;
  if (const char* dir = std::getenv("OPENINFER_CACHE_DIR")) {
    cache = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME")) {
    cache = std::string(xdg) + "/openinfer";
  } else if (const char* home = std::getenv("HOME")) {
    cache = std::string(home) + "/.cache/openinfer";
  }
  return std::filesystem::path(cache) / "silero_vad" / "silero_vad_16k.oinf";
}

// examples/gpt/gpt.oi with a host-driven reset: when `wipe` is true the step first clears the
// K/V tables, the tokens, the logits and the position, so it feeds the prompt again.
std::string gpt_with_reset() {
  std::string g = text_of(OPENINFER_SOURCE_DIR "/examples/gpt/gpt.oi");
  const std::string decide = "  op eq(pos, zero) >> first;\n";
  const size_t at = g.find(decide);
  BOOST_TEST_REQUIRE(at != std::string::npos);
  g.insert(at, "  branch wipe clear keep;\n");
  const size_t sections = g.find("\nconstant {");
  BOOST_TEST_REQUIRE(sections != std::string::npos);
  g.insert(sections + 1, "dynamic { wipe: bool; }\n");
  g += R"(
block clear {
  cache.reset K;
  cache.reset V;
  cache.reset tokens;
  cache.reset logits_at;
  cache.reset pos;
  cache.reset next;
  return;
}
block keep { return; }
)";
  return g;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(soak)

BOOST_AUTO_TEST_CASE(silero_vad_100000_steps) {
  const auto model_path = vad_model();
  if (!std::filesystem::exists(model_path)) {
    BOOST_TEST_MESSAGE("skipped: no " << model_path.string()
                                      << " (examples/silero_vad/fetch_and_export.sh makes it)");
    return;
  }
  oi::Simulator sim(oi::Model::open(model_path.string()),
                    oi::Graph::load(OPENINFER_SOURCE_DIR "/examples/silero_vad/vad.oi"), cpu());
  auto exec = sim.make_executor();
  std::mt19937 rng(21);
  std::normal_distribution<float> noise(0.0f, 0.1f);
  std::vector<float> chunk(512);
  int64_t at_1000 = 0;
  const int64_t steps = 100000;
  for (int64_t s = 1; s <= steps; ++s) {
    for (float& x : chunk) x = noise(rng);
    exec.insert("chunk", Tensor::from<float>(chunk, {1, 512}));
    exec.step();
    if (s == 1000) at_1000 = resident_bytes();
  }
  const int64_t at_end = resident_bytes();
  BOOST_TEST_MESSAGE("silero_vad: RSS at step 1,000 " << at_1000 << " bytes, at step 100,000 "
                                                      << at_end << " bytes, difference "
                                                      << at_end - at_1000 << " bytes");
  BOOST_TEST(std::llabs(at_end - at_1000) <= kMiB);
  BOOST_TEST(exec.table_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(gpt_decoder_until_the_budget_refuses) {
  // Per position: 2 layers x (K + V) entries of f16[4, 16] (128 bytes), one i64 token and
  // the f32[256] logits (logits_at).
  const uint64_t per_position = 2 * 2 * 128 + 8 + 256 * 4;
  const uint64_t budget = 24 * per_position;  // the prompt (8) and 16 generated tokens
  oi::SimulatorOptions options;
  options.max_table_bytes = budget;
  oi::Simulator sim(oi::Model::open(OPENINFER_SOURCE_DIR "/tests/gpt/fixtures/tiny_model.oinf"),
                    oi::Graph::parse(gpt_with_reset(), "gpt_reset.oi"), cpu(), options);
  auto exec = sim.make_executor();
  int64_t after_first_cycle = 0, last = 0;
  const int cycles = 1000;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    uint64_t steps = 0;
    bool wipe = true;
    for (;;) {
      exec.insert("wipe", Tensor::scalar<bool>(wipe));
      try {
        exec.step();
      } catch (const oi::Error& e) {
        BOOST_TEST_REQUIRE(contains(e.what(), "limit of " + std::to_string(budget) + " bytes"));
        break;
      }
      wipe = false;
      ++steps;
    }
    // Step 0 feeds the 8 prompt positions; every later step one more: 17 steps fill 24.
    BOOST_TEST(steps == 17u);
    BOOST_TEST(exec.table_bytes() == budget);
    if (cycle == 0) after_first_cycle = resident_bytes();
    last = resident_bytes();
  }
  BOOST_TEST_MESSAGE("gpt: budget " << budget << " bytes; RSS after cycle 1 " << after_first_cycle
                                    << " bytes, after cycle " << cycles << " " << last
                                    << " bytes, difference " << last - after_first_cycle
                                    << " bytes");
  BOOST_TEST(std::llabs(last - after_first_cycle) <= kMiB);
}

BOOST_AUTO_TEST_SUITE_END()
