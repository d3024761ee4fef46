// Collected validation messages: ordering and "FILE:LINE:COL: error: ..." formatting.
#include <algorithm>
#include <tuple>

#include "openinfer/validate.hpp"

namespace oi {

std::string format_message(const ValidationMessage& m) {
  std::string where = m.loc.origin.empty() ? "<graph>" : m.loc.origin;
  if (m.loc.line > 0) where += ":" + std::to_string(m.loc.line) + ":" + std::to_string(m.loc.col);
  return where + (m.severity == Severity::Error ? ": error: " : ": warning: ") + m.message;
}

void Diagnostics::error(const SourceLocation& loc, std::string message) {
  messages_.push_back({Severity::Error, std::move(message), loc});
}

void Diagnostics::warning(const SourceLocation& loc, std::string message) {
  messages_.push_back({Severity::Warning, std::move(message), loc});
}

size_t Diagnostics::error_count() const {
  return std::count_if(messages_.begin(), messages_.end(),
                       [](const auto& m) { return m.severity == Severity::Error; });
}

size_t Diagnostics::warning_count() const {
  return messages_.size() - error_count();
}

void Diagnostics::promote_warnings() {
  for (auto& m : messages_) m.severity = Severity::Error;
}

void Diagnostics::sort() {
  std::stable_sort(messages_.begin(), messages_.end(), [](const auto& a, const auto& b) {
    return std::tie(a.loc.origin, a.loc.line, a.loc.col) <
           std::tie(b.loc.origin, b.loc.line, b.loc.col);
  });
  // The same problem found twice (e.g. through two paths) is reported once.
  messages_.erase(std::unique(messages_.begin(), messages_.end(),
                              [](const auto& a, const auto& b) {
                                return a.severity == b.severity && a.message == b.message &&
                                       a.loc == b.loc;
                              }),
                  messages_.end());
}

std::string Diagnostics::format() const {
  std::string out;
  for (const auto& m : messages_) out += format_message(m) + "\n";
  return out;
}

}  // namespace oi
