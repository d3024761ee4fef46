// Graph::parse and Graph::load: the C++ entry points of the DSL.
#include <fstream>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "parser.hpp"

namespace oi {

Graph Graph::parse(std::string_view text, std::string_view origin) {
  return dsl::Parser(text, origin).parse();
}

Graph Graph::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, "cannot open graph file", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Input, "cannot read graph file", path.string());
  return parse(text.str(), path.string());
}

}  // namespace oi
