#include "pipeline_cache.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

namespace oi::vulkan {
namespace {

constexpr std::array<char, 8> kMagic{'O', 'I', 'V', 'K', 'P', 'C', '0', '1'};
constexpr size_t kFileHeader = 24;    // magic, size, hash
constexpr size_t kVulkanHeader = 32;  // VkPipelineCacheHeaderVersionOne
constexpr uint64_t kMaxPayload = 1ull << 30;

uint64_t fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t get_u32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

std::filesystem::path cache_dir() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  if (auto dir = env("OPENINFER_VULKAN_CACHE_DIR"); !dir.empty()) return dir;
  if (auto xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    return std::filesystem::path(xdg) / "openinfer" / "vulkan";
  }
  if (auto home = env("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".cache" / "openinfer" / "vulkan";
  }
  return {};
}

bool header_matches(const uint8_t* p, size_t size, const vk::PhysicalDeviceProperties& props) {
  if (size < kVulkanHeader) return false;
  const uint32_t header_size = get_u32(p);
  return header_size >= kVulkanHeader && header_size <= size &&
         get_u32(p + 4) == static_cast<uint32_t>(vk::PipelineCacheHeaderVersion::eOne) &&
         get_u32(p + 8) == props.vendorID && get_u32(p + 12) == props.deviceID &&
         std::memcmp(p + 16, props.pipelineCacheUUID.data(), VK_UUID_SIZE) == 0;
}

}  // namespace

std::filesystem::path pipeline_cache_path(const vk::PhysicalDeviceProperties& props) {
  const auto dir = cache_dir();
  if (dir.empty()) return {};
  char name[64];
  std::snprintf(name, sizeof(name), "pipelines-%04x-%04x-", props.vendorID, props.deviceID);
  std::string file = name;
  for (uint8_t b : props.pipelineCacheUUID) {
    std::snprintf(name, sizeof(name), "%02x", b);
    file += name;
  }
  return dir / (file + ".bin");
}

std::vector<uint8_t> load_pipeline_cache(const std::filesystem::path& path,
                                         const vk::PhysicalDeviceProperties& props) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::array<uint8_t, kFileHeader> head{};
  if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return {};
  if (std::memcmp(head.data(), kMagic.data(), kMagic.size()) != 0) return {};
  const uint64_t size = get_u64(head.data() + 8);
  if (size < kVulkanHeader || size > kMaxPayload) return {};
  std::vector<uint8_t> payload(size);
  if (!in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(size))) {
    return {};
  }
  if (in.peek() != std::char_traits<char>::eof()) return {};  // trailing bytes: not ours
  if (fnv1a(payload.data(), payload.size()) != get_u64(head.data() + 16)) return {};
  if (!header_matches(payload.data(), payload.size(), props)) return {};
  return payload;
}

void save_pipeline_cache(const std::filesystem::path& path, const std::vector<uint8_t>& payload) {
  if (path.empty() || payload.size() < kVulkanHeader || payload.size() > kMaxPayload) return;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return;
  std::string bytes(kMagic.begin(), kMagic.end());
  put_u64(bytes, payload.size());
  put_u64(bytes, fnv1a(payload.data(), payload.size()));
  bytes.append(payload.begin(), payload.end());
  const auto tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." +
                   std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace oi::vulkan
