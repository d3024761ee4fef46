// The Vulkan backend's _emu SPIR-V (i64/u64 in 32-bit words, for devices without shaderInt64)
// declares no Int64 capability: every variant named *_emu* in plugins/vulkan/shaders/*.variants
// is read from the build's spirv/ directory and its OpCapability instructions listed. The
// native variants they stand in for must declare it, so the check can tell the two apart.
#define BOOST_TEST_MODULE vulkan_int64_emulated_spirv
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr uint32_t kMagic = 0x07230203, kOpCapability = 17, kCapabilityInt64 = 11;

// The operands of the module's OpCapability instructions.
std::set<uint32_t> capabilities(const fs::path& spv) {
  std::ifstream in(spv, std::ios::binary);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << spv);
  std::vector<uint32_t> words;
  uint32_t w;
  while (in.read(reinterpret_cast<char*>(&w), 4)) words.push_back(w);
  BOOST_TEST_REQUIRE(words.size() >= 5u, spv << " is not SPIR-V");
  BOOST_TEST_REQUIRE(words[0] == kMagic, spv << " is not SPIR-V");
  std::set<uint32_t> caps;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffffu;
    BOOST_TEST_REQUIRE(count > 0u, spv << ": a zero-length instruction");
    if (opcode == kOpCapability && count >= 2) caps.insert(words[i + 1]);
    i += count;
  }
  return caps;
}

// The variant names of every *.variants file.
std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(SHADER_DIR)) {
    if (e.path().extension() != ".variants") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line.find('|') == std::string::npos) continue;
      names.push_back(line.substr(0, line.find('|')));
    }
  }
  return names;
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_emulated_variant_declares_int64) {
  size_t emulated = 0;
  for (const std::string& name : variant_names()) {
    const size_t at = name.find("_emu");
    if (at == std::string::npos) continue;
    ++emulated;
    const auto caps = capabilities(fs::path(SPIRV_DIR) / (name + ".spv"));
    BOOST_TEST(caps.count(kCapabilityInt64) == 0u, name << " declares the Int64 capability");
    // the native variant it replaces: the same name without "_emu"
    const std::string native = name.substr(0, at) + name.substr(at + 4);
    BOOST_TEST(capabilities(fs::path(SPIRV_DIR) / (native + ".spv")).count(kCapabilityInt64) == 1u,
               native << " (native) does not declare Int64");
  }
  BOOST_TEST_MESSAGE(emulated << " emulated variants checked");
  BOOST_TEST(emulated >= 4u);  // eltwise_i64_emu and ew64_i_emu with its _fc and _ieee builds
}
