// Rendering DOT text with Graphviz's `dot` program (Debian package graphviz), for
// `openinfer graph dot --svg|--png` and `openinfer synth --svg DIR`.
#pragma once

#include <string>

namespace oi::cli {

// Throws oi::Error (Environment, exit 3) naming the package when `dot` is not on PATH.
void require_graphviz();

// The rendering of `dot_text` in `format` ("svg", "png"). Throws Environment when `dot` is
// missing, Input when it fails (with its messages).
std::string render_dot(const std::string& dot_text, const std::string& format);

}  // namespace oi::cli
