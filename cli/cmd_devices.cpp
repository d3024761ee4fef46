// `openinfer devices probe --backend cpu [-o FILE.json]` writes the description of the machine
// it runs on (docs/devices.md); `openinfer devices check FILE.json` validates one.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/device_arch.hpp"
#include "openinfer/error.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "Usage: openinfer devices probe --backend cpu [-o FILE.json]\n"
    "       openinfer devices check FILE.json\n\n"
    "probe writes the description of this machine's CPU (docs/devices.md) to FILE.json\n"
    "(atomically) or stdout. check validates a description: errors name the key, unknown keys\n"
    "are warnings.";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "32K", "1024K", "32M" as in /sys/devices/system/cpu/cpu0/cache/index*/size.
uint64_t parse_size(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  uint64_t mult = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M' || s.back() == 'G')) {
    mult = s.back() == 'K' ? 1024 : s.back() == 'M' ? 1024 * 1024 : 1024ull * 1024 * 1024;
    s.pop_back();
  }
  try {
    return std::stoull(s) * mult;
  } catch (...) {
    return 0;
  }
}

std::string first_line(const fs::path& p) {
  std::string line;
  std::ifstream in(p);
  std::getline(in, line);
  return line;
}

DeviceArch probe_cpu() {
  DeviceArch a;
  a.origin = "<probe>";
  a.device.type = "cpu";
  a.device.api = "c";
  a.has_cpu = true;
  std::string model_name, vendor;
  std::set<std::string> flags;
  std::istringstream info(read_file("/proc/cpuinfo"));
  for (std::string line; std::getline(info, line);) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && model_name.empty()) model_name = value;
    if (key == "vendor_id" && vendor.empty()) vendor = value;
    if ((key == "flags" || key == "Features") && flags.empty()) {
      std::istringstream f(value);
      for (std::string w; f >> w;) flags.insert(w);
    }
  }
#if defined(__x86_64__)
  a.cpu.isa = "x86-64";
#elif defined(__aarch64__)
  a.cpu.isa = "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
  a.cpu.isa = "riscv64";
#else
  a.cpu.isa = "generic";
#endif
  a.device.name = model_name.empty() ? "unknown CPU" : model_name;
  a.device.vendor = vendor;
  a.device.architecture = a.cpu.isa;
  for (const char* f : {"sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw",
                        "avx512dq", "avx512vl", "avx512_bf16", "avx512_fp16", "asimd", "sve"})
    if (flags.count(f)) a.cpu.simd.push_back(f);
  a.cpu.vector_bits = flags.count("avx512f")                          ? 512
                      : flags.count("avx")                            ? 256
                      : (flags.count("sse2") || flags.count("asimd")) ? 128
                                                                      : 0;
  long threads = sysconf(_SC_NPROCESSORS_ONLN);
  a.cpu.threads = threads > 0 ? static_cast<uint32_t>(threads) : 1;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  a.memory.global_bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * page : 1;
  const fs::path cache = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("index", 0) != 0) continue;
    const std::string level = first_line(it->path() / "level");
    const std::string type = first_line(it->path() / "type");
    const uint64_t size = parse_size(first_line(it->path() / "size"));
    if (level == "1" && type == "Data") a.memory.l1d_bytes = size;
    if (level == "2") a.memory.l2_bytes = size;
    if (level == "3") a.memory.l3_bytes = size;
    if (level == "1" && type == "Data") {
      uint64_t line = parse_size(first_line(it->path() / "coherency_line_size"));
      if (line && (line & (line - 1)) == 0) a.cpu.cache_line_bytes = static_cast<uint32_t>(line);
    }
  }
  if (a.memory.l1d_bytes == 0) a.memory.l1d_bytes = 32 * 1024;  // sysfs without cache info
  return a;
}

void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path temp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw input_error("cannot write the device description", path.string());
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw input_error("cannot write the device description: " + ec.message(), path.string());
  }
}

int run_probe(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("backend,b", po::value<std::string>(), "cpu")(
      "output,o", po::value<std::string>(), "write the description to this file");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    ctx.out << kUsage << "\n\n" << options;
    return 0;
  }
  if (!vm.count("backend")) usage_error("missing --backend cpu");
  const std::string backend = vm["backend"].as<std::string>();
  if (backend != "cpu")
    usage_error("devices probe supports --backend cpu; describe a '" + backend +
                "' device by hand (docs/devices.md; devices/lavapipe.json is an example)");
  const DeviceArch a = probe_cpu();
  // The probe's own output must pass the loader's checks.
  const std::string text = DeviceArch::parse(a.to_json(), "<probe>").to_json();
  if (vm.count("output"))
    write_atomically(vm["output"].as<std::string>(), text);
  else
    ctx.out << text;
  return 0;
}

int run_check(const std::vector<std::string>& args, Context& ctx) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
    usage_error("devices check takes one FILE.json");
  const DeviceArch a = DeviceArch::load(args[0]);
  for (const std::string& w : a.warnings) ctx.err << "warning: " << w << "\n";
  ctx.out << "ok: " << a.device.type << " '" << a.device.name << "', max_kernel_ops "
          << a.preferences.max_kernel_ops << "\n";
  return 0;
}

int run_devices(const std::vector<std::string>& args, Context& ctx) {
  if (args.empty()) usage_error("missing sub-command: probe or check (see --help)");
  const std::string& sub = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    ctx.out << kUsage << "\n";
    return 0;
  }
  if (sub == "probe") return run_probe(rest, ctx);
  if (sub == "check") return run_check(rest, ctx);
  usage_error("unknown devices sub-command '" + sub + "' (probe or check)");
}

const CommandRegistration kRegistration({"devices", "probe or check device descriptions",
                                         run_devices});

}  // namespace
}  // namespace oi::cli
