// A stand-in for libFuzzer on compilers without it (gcc): feeds every corpus file to
// LLVMFuzzerTestOneInput, then deterministic mutations of them (bit flips, truncations,
// byte and 32-bit field overwrites) until the time budget is spent.
// Usage: DRIVER SECONDS CORPUS_DIR...
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

std::vector<Input> load_corpus(int argc, char** argv) {
  std::vector<Input> corpus;
  for (int i = 2; i < argc; ++i) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i], ec)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (ec)
      std::fprintf(stderr, "replay: cannot read corpus %s: %s\n", argv[i], ec.message().c_str());
  }
  if (corpus.empty()) corpus.emplace_back();  // at least the empty input
  return corpus;
}

// xorshift64*: a fixed seed keeps every run identical.
struct Rng {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
  }
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }
};

void mutate(Input& in, Rng& rng) {
  static constexpr uint32_t kInteresting[] = {0,    1,    7,      8,          0x7F,
                                              0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF};
  const size_t rounds = 1 + rng.below(4);
  for (size_t r = 0; r < rounds && !in.empty(); ++r) {
    switch (rng.below(4)) {
      case 0:  // flip one bit
        in[rng.below(in.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        break;
      case 1:  // truncate
        in.resize(rng.below(in.size() + 1));
        break;
      case 2:  // set one byte
        in[rng.below(in.size())] = static_cast<uint8_t>(rng.next());
        break;
      default: {  // overwrite a little-endian u32 field with an edge value
        const size_t at = rng.below(in.size());
        const uint32_t v = kInteresting[rng.below(std::size(kInteresting))];
        for (size_t i = 0; i < 4 && at + i < in.size(); ++i)
          in[at + i] = static_cast<uint8_t>(v >> (8 * i));
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SECONDS CORPUS_DIR...\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const auto corpus = load_corpus(argc, argv);
  for (const auto& in : corpus) LLVMFuzzerTestOneInput(in.data(), in.size());

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  Rng rng;
  uint64_t runs = corpus.size();
  while (std::chrono::steady_clock::now() < deadline) {
    for (int batch = 0; batch < 64; ++batch) {
      Input in = corpus[rng.below(corpus.size())];
      mutate(in, rng);
      LLVMFuzzerTestOneInput(in.data(), in.size());
      ++runs;
    }
  }
  std::printf("replay: %llu inputs (%zu corpus files) in %.0f s, no crash\n",
              static_cast<unsigned long long>(runs), corpus.size(), seconds);
  return 0;
}
