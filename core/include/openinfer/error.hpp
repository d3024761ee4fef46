// Errors thrown inside the C++ core and frontend. They never cross the plugin C ABI:
// the plugin host turns them into oi_status values and back.
#pragma once

#include <stdexcept>
#include <string>

namespace oi {

// What went wrong, in the terms of the CLI's exit codes (cli.md).
enum class ErrorKind {
  Input = 1,        // the input is wrong: validation, a failed op, a corrupt or missing file
  Usage = 2,        // the command line is wrong
  Environment = 3,  // a backend or plugin that is needed is missing or cannot load
};

class Error : public std::runtime_error {
 public:
  // `where` is an optional prefix such as "model.oinf" or "graph.oi:3:7" printed before "error:".
  Error(ErrorKind kind, std::string message, std::string where = {})
      : std::runtime_error(std::move(message)), kind_(kind), where_(std::move(where)) {}

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& where() const noexcept { return where_; }
  // Extra indented lines printed after the first (source line and caret, hints, lists).
  const std::string& context() const noexcept { return context_; }
  Error& with_context(std::string context) {
    context_ = std::move(context);
    return *this;
  }

 private:
  ErrorKind kind_;
  std::string where_;
  std::string context_;
};

inline Error input_error(std::string message, std::string where = {}) {
  return Error(ErrorKind::Input, std::move(message), std::move(where));
}

}  // namespace oi
