// The portable C kernel library (plugins/c_kernels, docs/c-kernels.md) as the C emitter uses
// it: its files are installed beside the emitter plugin (a `c_kernels/` directory next to the
// plugin's shared object, in the build tree and the install tree), its entry points and their
// signature classes are read from its generated header, and a program that calls some of its
// ops ships those ops' files in OUT/oi_kernels/.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "c_generator.hpp"

namespace oi::c_emitter {

class KernelLibrary {
 public:
  // The library whose include/, src/ and ops/ are under `dir`; throws std::runtime_error when
  // its header cannot be read.
  explicit KernelLibrary(std::filesystem::path dir);

  // The copy installed beside this plugin, or nullptr where there is none (the message says
  // where it was looked for).
  static const KernelLibrary* beside_plugin(std::string* why_not = nullptr);

  const std::filesystem::path& dir() const { return dir_; }

  // The signature class of an entry point ("ew2", "div_f", "matmul": the oik_sig_* typedef
  // its prototype matches), or "" when the library has no such entry point.
  std::string signature(const std::string& symbol) const;

  // The files a program whose kernels call the ops `ops` ships, under `oi_kernels/`: the
  // library's two headers, the SDK's openinfer/geometry.h (slice and window arithmetic, which
  // run-time shape rules use), the src/ headers the op files include, each ops/<op>.c, and
  // oi_kernels/oi_kernels.c, which NAME.c includes last (one translation unit, so the build
  // line of a program stays `cc OUT/*.c`, and the freestanding profile's stays NAME.c alone).
  std::vector<GeneratedFile> files_for(const std::set<std::string>& ops) const;

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::string> signature_;  // entry point -> signature class
};

}  // namespace oi::c_emitter
