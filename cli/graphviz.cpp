// Runs Graphviz's `dot` on a temporary file: the DOT text in, the rendering out.
#include "graphviz.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "openinfer/error.hpp"

extern char** environ;

namespace oi::cli {
namespace {

namespace fs = std::filesystem;

std::string find_dot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/dot";
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return {};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A private temporary folder, removed with everything in it when the scope ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "openinfer-dot-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw Error(ErrorKind::Environment, "cannot create a temporary folder for Graphviz");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

void require_graphviz() {
  if (find_dot().empty())
    throw Error(ErrorKind::Environment,
                "rendering needs Graphviz's `dot`, which is not on PATH: install the Debian "
                "package graphviz (apt-get install graphviz fonts-dejavu-core), or leave out "
                "--svg/--png to write the DOT text");
}

std::string render_dot(const std::string& dot_text, const std::string& format) {
  require_graphviz();
  const std::string dot = find_dot();
  TempDir tmp;
  const fs::path in = tmp.path / "graph.dot", out = tmp.path / ("graph." + format),
                 err = tmp.path / "dot.err";
  {
    std::ofstream f(in, std::ios::binary);
    f << dot_text;
    if (!f) throw Error(ErrorKind::Environment, "cannot write a temporary file for Graphviz");
  }
  std::vector<std::string> args = {"dot", "-T" + format, "-o", out.string(), in.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, dot.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error(ErrorKind::Environment, "cannot run '" + dot + "'");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw input_error("Graphviz's dot failed to render " + format).with_context(slurp(err));
  return slurp(out);
}

}  // namespace oi::cli
