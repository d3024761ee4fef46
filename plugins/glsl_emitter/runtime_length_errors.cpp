// Run-time errors of kernels of run-time length as runs of forms (runtime_length_errors.hpp).
#include "runtime_length_errors.hpp"

#include <cctype>

namespace oi::glsl {

namespace json = boost::json;

namespace {

// The message's literal pieces and the decimal numbers between them.
void split(const std::string& m, std::vector<std::string>& text, std::vector<int64_t>& numbers) {
  text.assign(1, "");
  for (size_t i = 0; i < m.size();) {
    if (!std::isdigit(static_cast<unsigned char>(m[i]))) {
      text.back() += m[i++];
      continue;
    }
    size_t e = i;
    while (e < m.size() && std::isdigit(static_cast<unsigned char>(m[e]))) ++e;
    numbers.push_back(std::stoll(m.substr(i, e - i)));
    text.emplace_back();
    i = e;
  }
}

}  // namespace

void LengthErrors::add(uint64_t L, const std::string& message) {
  std::vector<std::string> text;
  std::vector<int64_t> numbers;
  split(message, text, numbers);
  const auto l = static_cast<int64_t>(L);
  if (!runs_.empty() && runs_.back().text == text &&
      (runs_.back().from == runs_.back().to || runs_.back().to + runs_.back().step == L)) {
    Run& r = runs_.back();
    bool fits = true;
    if (r.from == r.to) {  // the second length sets the step and each number's form
      const auto step = static_cast<int64_t>(L - r.from);
      std::vector<std::pair<int64_t, int64_t>> forms;
      for (size_t n = 0; n < numbers.size() && fits; ++n) {
        fits = (numbers[n] - r.first[n]) % step == 0;
        const int64_t a = (numbers[n] - r.first[n]) / step;
        forms.emplace_back(a, r.first[n] - a * static_cast<int64_t>(r.from));
      }
      if (fits) {
        r.step = L - r.from;
        r.forms = std::move(forms);
      }
    } else {
      for (size_t n = 0; n < numbers.size() && fits; ++n)
        fits = r.forms[n].first * l + r.forms[n].second == numbers[n];
    }
    if (fits) {
      r.to = L;
      return;
    }
  }
  Run r{L, L, 1, std::move(text), numbers, {}};
  for (int64_t v : numbers) r.forms.emplace_back(0, v);
  runs_.push_back(std::move(r));
}

json::array LengthErrors::to_json() const {
  json::array out;
  for (const Run& r : runs_) {
    json::array numbers;
    for (const auto& [a, b] : r.forms) numbers.push_back(json::array{a, b});
    out.push_back(json::object{{"from", r.from},
                               {"to", r.to},
                               {"step", r.step},
                               {"text", json::array(r.text.begin(), r.text.end())},
                               {"numbers", std::move(numbers)}});
  }
  return out;
}

}  // namespace oi::glsl
