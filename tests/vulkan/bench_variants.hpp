// Tuning variants for a bench that compares them in one process (vulkan_f16_matmul
// --variants): each is `default` or space-separated NAME=VALUE settings of the environment,
// which the Vulkan plugin reads on every call. apply() undoes the settings of the variant
// applied before it, so each variant sees only its own.
#pragma once

#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct Variant {
  std::string label;
  std::vector<std::pair<std::string, std::string>> settings;
  bool failed = false;
};

// "V;V;...": variants separated by ';'.
inline std::vector<Variant> parse_variants(const std::string& text) {
  std::vector<Variant> list;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    Variant v;
    std::stringstream words(item);
    std::string word;
    while (words >> word) {
      if (word == "default") continue;
      const size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument("variant setting '" + word + "' is not NAME=VALUE");
      }
      v.settings.emplace_back(word.substr(0, eq), word.substr(eq + 1));
      v.label += (v.label.empty() ? "" : " ") + word;
    }
    if (v.label.empty()) v.label = "default";
    list.push_back(std::move(v));
  }
  return list;
}

// Sets v's settings and unsets those of the variant applied before.
inline void apply(const Variant& v) {
  static std::set<std::string> set_before;
  for (const auto& name : set_before) unsetenv(name.c_str());
  set_before.clear();
  for (const auto& [name, value] : v.settings) {
    setenv(name.c_str(), value.c_str(), 1);
    set_before.insert(name);
  }
}
