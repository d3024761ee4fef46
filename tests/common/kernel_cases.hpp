// Reading the numpy-computed kernel cases, tests/plugins/cpu_kernel_cases.json and every
// tests/plugins/cases/*.json (one generator per op family writes each): shared by every
// backend's conformance test, so each backend is held to the same expectations.
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/plugin_host.hpp"

namespace kernel_cases {

struct Operand {
  oi::DType dtype;
  std::vector<uint64_t> dims;
  std::vector<std::byte> bytes;
};

inline std::vector<std::byte> from_hex(std::string_view hex) {
  std::vector<std::byte> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] =
        std::byte(static_cast<uint8_t>(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16)));
  }
  return out;
}

inline oi::DType dtype_named(std::string_view name) {
  auto t = oi::dtype_from_name(name);
  BOOST_REQUIRE(t);
  return *t;
}

inline Operand operand(const boost::json::value& v) {
  const auto& o = v.as_object();
  Operand t{dtype_named(o.at("dtype").as_string()), {}, from_hex(o.at("hex").as_string())};
  for (const auto& d : o.at("dims").as_array()) t.dims.push_back(d.to_number<uint64_t>());
  return t;
}

inline oi::KernelSetting setting(const boost::json::value& v) {
  const auto& o = v.as_object();
  std::string name(o.at("name").as_string());
  std::string_view type = o.at("type").as_string();
  const auto& value = o.at("value");
  // u64 values above INT64_MAX travel as their two's-complement bits (plugin_abi.h).
  if (type == "int" && value.is_uint64()) return {name, static_cast<int64_t>(value.as_uint64())};
  if (type == "int") return {name, value.to_number<int64_t>()};
  if (type == "float" && value.is_string()) {
    return {name, std::stod(std::string(value.as_string()))};  // "inf", "-inf"
  }
  if (type == "float") return {name, value.to_number<double>()};
  if (type == "bool") return {name, value.as_bool()};
  if (type == "dtype") return {name, dtype_named(value.as_string())};
  if (type == "int_list") {
    std::vector<int64_t> list;
    for (const auto& x : value.as_array()) list.push_back(x.to_number<int64_t>());
    return {name, list};
  }
  return {name, std::string(value.as_string())};
}

inline oi::KernelMode mode_named(std::string_view m) {
  if (m == "inplace") return oi::KernelMode::InPlace;
  if (m == "accumulate") return oi::KernelMode::Accumulate;
  return oi::KernelMode::Normal;
}

inline std::string kernel_key(const std::string& op, const std::vector<oi::DType>& in,
                              oi::DType out, oi::KernelMode mode) {
  std::string key = op + "(";
  for (auto t : in) key += std::string(oi::dtype_name(t)) + ",";
  return key + ")->" + std::string(oi::dtype_name(out)) + " " +
         std::string(oi::kernel_mode_name(mode));
}

inline boost::json::array cases_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << file);
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str()).as_object().at("cases").as_array();
}

// Every case: cpu_kernel_cases.json first, then cases/*.json in name order.
inline boost::json::array load_all_cases(const std::string& source_dir) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(source_dir) / "tests" / "plugins";
  boost::json::array all = cases_in(dir / "cpu_kernel_cases.json");
  std::vector<fs::path> extra;
  if (fs::is_directory(dir / "cases"))
    for (const auto& e : fs::directory_iterator(dir / "cases"))
      if (e.path().extension() == ".json") extra.push_back(e.path());
  std::sort(extra.begin(), extra.end());
  for (const auto& f : extra)
    for (auto& c : cases_in(f)) all.push_back(std::move(c));
  return all;
}

}  // namespace kernel_cases
