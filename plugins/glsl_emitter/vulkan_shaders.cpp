#include "vulkan_shaders.hpp"

#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "plan_input.hpp"

namespace oi::glsl {

namespace {

struct EmbeddedFile {
  const char* name;
  const char* text;
};

#include "embedded_vulkan_shaders.inc"  // kVulkanShaderFiles: plugins/vulkan/shaders/*

const char* file_text(std::string_view name) {
  for (const EmbeddedFile& f : kVulkanShaderFiles)
    if (name == f.name) return f.text;
  return nullptr;
}

// Every "name|source|defines" line of the *.variants files.
const std::map<std::string, ShaderVariant>& variants() {
  static const std::map<std::string, ShaderVariant> all = [] {
    std::map<std::string, ShaderVariant> out;
    for (const EmbeddedFile& f : kVulkanShaderFiles) {
      const std::string_view name = f.name;
      if (name.size() < 9 || name.substr(name.size() - 9) != ".variants") continue;
      std::istringstream lines(f.text);
      std::string line;
      while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t a = line.find('|'), b = line.find('|', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        ShaderVariant v{line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)};
        out[v.name] = v;
      }
    }
    return out;
  }();
  return all;
}

}  // namespace

const ShaderVariant* shader_variant(const std::string& name) {
  auto it = variants().find(name);
  return it == variants().end() ? nullptr : &it->second;
}

const char* shader_file(const std::string& name) {
  const char* text = file_text(name);
  if (text == nullptr) invalid_plan("the Vulkan backend has no shader source '" + name + "'");
  return text;
}

std::vector<std::pair<std::string, std::string>> shader_sources(const std::string& source) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  std::vector<std::string> pending{source};
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    const char* text = shader_file(name);
    out.emplace_back(name, text);
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t inc = line.find("#include \"");
      if (inc == std::string::npos) continue;
      const size_t start = inc + 10, end = line.find('"', start);
      if (end != std::string::npos) pending.push_back(line.substr(start, end - start));
    }
  }
  return out;
}

}  // namespace oi::glsl
