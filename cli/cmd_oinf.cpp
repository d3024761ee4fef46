// `openinfer oinf inspect|verify|dump|pack` (cli.md): look at, check and convert model packages.
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/error.hpp"
#include "openinfer/model.hpp"
#include "openinfer/oinf_text.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kOinfUsage =
    "Usage: openinfer oinf SUBCOMMAND [ARGS...]\n\n"
    "Sub-commands:\n"
    "  inspect FILE         print a human-readable view of a model package\n"
    "  verify FILE          validate the whole file: prints `ok`, or the first problem\n"
    "  dump FILE            print the complete text form of a package\n"
    "  pack TEXT -o FILE    write the package described by a text form\n\n"
    "`openinfer oinf SUBCOMMAND --help` describes one sub-command.\n";

struct SubcommandSpec {
  std::string usage;          // first help line
  std::string input_name;     // the positional argument
  bool wants_output = false;  // -o FILE (required)
};

struct SubcommandArgs {
  bool help = false;
  std::string input;
  std::string output;
};

// Parses a sub-command's arguments; prints help (and returns help=true) on --help.
SubcommandArgs parse_args(const SubcommandSpec& spec, const std::vector<std::string>& args,
                          Context& ctx) {
  SubcommandArgs parsed;
  po::options_description options("Options");
  options.add_options()("help,h", "print this help");
  if (spec.wants_output)
    options.add_options()("output,o", po::value<std::string>(&parsed.output),
                          "the package file to write");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>(&parsed.input));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("input", 1);

  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    ctx.out << spec.usage << "\n\n" << options;
    parsed.help = true;
    return parsed;
  }
  if (parsed.input.empty()) usage_error("missing " + spec.input_name + " (see --help)");
  if (spec.wants_output && parsed.output.empty()) usage_error("missing -o FILE (see --help)");
  return parsed;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw input_error("cannot read '" + path + "'");
  return text.str();
}

int run_inspect(const std::vector<std::string>& args, Context& ctx) {
  auto a = parse_args({"Usage: openinfer oinf inspect FILE\n"
                       "Prints sizevars, metadata and tensors (long tensors shortened, with "
                       "statistics).",
                       "FILE"},
                      args, ctx);
  if (a.help) return 0;
  ctx.out << inspect_oinf(Model::open(a.input));
  return 0;
}

int run_verify(const std::vector<std::string>& args, Context& ctx) {
  auto a = parse_args({"Usage: openinfer oinf verify FILE\n"
                       "Validates the whole file (oinf.md): prints `ok` and exits 0, or the "
                       "first problem and exits 1.",
                       "FILE"},
                      args, ctx);
  if (a.help) return 0;
  const Model model = Model::open(a.input);
  // Opening validates the tables; decoding every value and touching every tensor also reads
  // each payload once.
  for (const MetadataEntry& m : model.metadata()) model.metadata_value(m);
  for (const TensorEntry& t : model.tensors())
    if (t.has_data) model.tensor(t);
  ctx.out << "ok\n";
  return 0;
}

int run_dump(const std::vector<std::string>& args, Context& ctx) {
  auto a = parse_args({"Usage: openinfer oinf dump FILE\n"
                       "Prints the complete text form of a package (`pack` reads it back).",
                       "FILE"},
                      args, ctx);
  if (a.help) return 0;
  ctx.out << dump_oinf_text(Model::open(a.input));
  return 0;
}

int run_pack(const std::vector<std::string>& args, Context& ctx) {
  auto a = parse_args({"Usage: openinfer oinf pack TEXT -o FILE\n"
                       "Writes the canonical package described by the text form TEXT; nothing "
                       "is written on an error.",
                       "TEXT", true},
                      args, ctx);
  if (a.help) return 0;
  parse_oinf_text(read_text_file(a.input), a.input).write(a.output);
  return 0;
}

int run_oinf(const std::vector<std::string>& args, Context& ctx) {
  if (args.empty()) usage_error("missing sub-command: inspect, verify, dump or pack (see --help)");
  const std::string& sub = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h") {
    ctx.out << kOinfUsage;
    return 0;
  }
  if (sub == "inspect") return run_inspect(rest, ctx);
  if (sub == "verify") return run_verify(rest, ctx);
  if (sub == "dump") return run_dump(rest, ctx);
  if (sub == "pack") return run_pack(rest, ctx);
  if (sub.starts_with("-")) usage_error("unknown option '" + sub + "' for `openinfer oinf`");
  usage_error("unknown sub-command 'oinf " + sub + "' (inspect, verify, dump, pack)");
}

const CommandRegistration kRegistration({"oinf", "inspect, verify, dump and pack model packages",
                                         run_oinf});

}  // namespace
}  // namespace oi::cli
