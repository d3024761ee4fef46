// The C kernel library beside the plugin (kernel_library.hpp).
#define BOOST_DLL_USE_STD_FS
#include "kernel_library.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace oi::c_emitter {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the C kernel library's '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// The names of `#include "NAME"` lines (the library's own headers; <...> are the C library's).
std::vector<std::string> local_includes(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.rfind("#include \"", 0) != 0) continue;
    const size_t end = line.find('"', 10);
    if (end != std::string::npos) out.push_back(line.substr(10, end - 10));
  }
  return out;
}

// The macros an op file defines for itself (DEF_F, OP, ...): undefined after it, since several
// op files share one translation unit.
std::vector<std::string> defined_macros(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.rfind("#define ", 0) != 0) continue;
    const std::string rest = trim(line.substr(8));
    const size_t end = rest.find_first_of("( \t");
    out.push_back(rest.substr(0, end));
  }
  return out;
}

}  // namespace

KernelLibrary::KernelLibrary(std::filesystem::path dir) : dir_(std::move(dir)) {
  // `typedef int (*oik_sig_ew2)(PARAMS, oik_error* err);` names each class's parameters;
  // `int oik_add_f32(PARAMS, oik_error* err);` declares an entry point.
  const std::string header = read_file(dir_ / "include" / "oi_kernels_ops.h");
  std::map<std::string, std::string> class_of_params;
  std::vector<std::pair<std::string, std::string>> prototypes;
  std::istringstream in(header);
  for (std::string line; std::getline(in, line);) {
    const size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    if (line.rfind("typedef int (*oik_sig_", 0) == 0) {
      const size_t name_end = line.find(')');
      const std::string name = line.substr(22, name_end - 22);
      const size_t params = line.find('(', name_end);
      class_of_params[line.substr(params + 1, close - params - 1)] = name;
    } else if (line.rfind("int oik_", 0) == 0) {
      prototypes.emplace_back(line.substr(4, open - 4), line.substr(open + 1, close - open - 1));
    }
  }
  for (const auto& [symbol, params] : prototypes) {
    auto it = class_of_params.find(params);
    if (it != class_of_params.end()) signature_[symbol] = it->second;
  }
  if (signature_.empty())
    throw std::runtime_error("the C kernel library's header '" +
                             (dir_ / "include" / "oi_kernels_ops.h").string() +
                             "' declares no entry points");
}

const KernelLibrary* KernelLibrary::beside_plugin(std::string* why_not) {
  // Looked up once per process: the plugin's own file, then c_kernels/ beside it.
  static const auto found = []() -> std::pair<std::unique_ptr<KernelLibrary>, std::string> {
    std::error_code error;
    const std::filesystem::path self = boost::dll::this_line_location(error);
    if (error) return {nullptr, "the C emitter plugin cannot tell its own path"};
    const std::filesystem::path dir = self.parent_path() / "c_kernels";
    try {
      return {std::make_unique<KernelLibrary>(dir), ""};
    } catch (const std::exception& e) {
      return {nullptr, e.what()};
    }
  }();
  if (why_not) *why_not = found.second;
  return found.first.get();
}

std::string KernelLibrary::signature(const std::string& symbol) const {
  auto it = signature_.find(symbol);
  return it == signature_.end() ? std::string() : it->second;
}

std::vector<GeneratedFile> KernelLibrary::files_for(const std::set<std::string>& ops) const {
  std::vector<GeneratedFile> files;
  std::set<std::string> shipped;
  // A header the files include, from include/ or src/, with the headers it includes first.
  auto ship_header = [&](auto& self, const std::string& name) -> void {
    if (!shipped.insert(name).second) return;
    std::filesystem::path path = dir_ / "include" / name;
    if (!std::filesystem::exists(path)) path = dir_ / "src" / name;
    const std::string text = read_file(path);
    for (const auto& inc : local_includes(text)) self(self, inc);
    files.push_back({"oi_kernels/" + name, text});
  };
  std::ostringstream unit;
  unit << "/* The ops of OpenInfer's C kernel library (docs/c-kernels.md) that this program's\n"
          " * kernels call, compiled as part of the program's source, which includes this file\n"
          " * last. The library needs IEEE binary32/binary64 without excess precision and no\n"
          " * contraction of a*b+c into an fma: C11's ISO mode (-std=c11) or -ffp-contract=off. "
          "*/\n";
  for (const std::string& op : ops) {
    const std::string text = read_file(dir_ / "ops" / (op + ".c"));
    for (const auto& inc : local_includes(text)) ship_header(ship_header, inc);
    files.push_back({"oi_kernels/" + op + ".c", text});
    unit << "#include \"" << op << ".c\"\n";
    for (const auto& m : defined_macros(text)) unit << "#undef " << m << "\n";
  }
  ship_header(ship_header, "oi_kernels.h");
  ship_header(ship_header, "openinfer/geometry.h");
  files.push_back({"oi_kernels/oi_kernels.c", unit.str()});
  return files;
}

}  // namespace oi::c_emitter
