#include "tuning_env.hpp"

#include <cstdlib>
#include <sstream>

#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {

const char* tuning_env(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? text : nullptr;
}

void bad_tuning(const char* op, const char* name, const std::string& why) {
  throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT,
                         std::string("vulkan ") + op + ": " + name + " " + why);
}

std::vector<uint32_t> parse_tuning_list(const char* op, const char* name, const char* text,
                                        size_t count, uint32_t max, const std::string& shape) {
  std::vector<uint32_t> v;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const unsigned long x = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || x == 0 || x > max) bad_tuning(op, name, "is not a list");
    v.push_back(static_cast<uint32_t>(x));
  }
  if (v.size() != count)
    bad_tuning(op, name, "needs " + std::to_string(count) + " numbers" + shape);
  return v;
}

}  // namespace oi::vulkan
