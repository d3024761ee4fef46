// --input parsing and the per-step inserts of `openinfer run`.
#include "run_inputs.hpp"

#include <filesystem>

#include "command.hpp"
#include "openinfer/error.hpp"

namespace oi::cli {

InputSpec parse_input_spec(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    usage_error("--input '" + text + "' is not NAME=FILE or NAME=FILE:TENSOR");
  InputSpec spec;
  spec.name = text.substr(0, eq);
  const std::string rest = text.substr(eq + 1);
  const size_t colon = rest.rfind(':');
  std::error_code ec;
  if (colon == std::string::npos || std::filesystem::is_regular_file(rest, ec)) {
    spec.file = rest;
    spec.tensor = spec.name;
    return spec;
  }
  spec.file = rest.substr(0, colon);
  spec.tensor = rest.substr(colon + 1);
  spec.explicit_tensor = true;
  if (spec.file.empty() || spec.tensor.empty())
    usage_error("--input '" + text + "' is not NAME=FILE or NAME=FILE:TENSOR");
  return spec;
}

std::string substitute_step(const std::string& pattern, uint64_t step) {
  static const std::string kStep = "{step}";
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = pattern.find(kStep, pos)) != std::string::npos; pos = hit + kStep.size())
    out += pattern.substr(pos, hit - pos) + std::to_string(step);
  return out + pattern.substr(pos);
}

StepInputs::StepInputs(std::vector<InputSpec> specs) : specs_(std::move(specs)) {
  for (const InputSpec& s : specs_) {
    auto it = files_.find(s.file);
    if (it == files_.end()) it = files_.emplace(s.file, Model::open(s.file)).first;
    if (!s.explicit_tensor && it->second.find_tensor(s.tensor) == nullptr)
      throw input_error("--input " + s.name + "=" + s.file + ": the file has no tensor '" +
                        s.tensor + "' (name one with " + s.name + "=" + s.file + ":TENSOR)");
  }
}

std::vector<std::string> StepInputs::insert_for_step(Executor& exec, uint64_t step) const {
  std::vector<std::string> inserted;
  for (const InputSpec& s : specs_) {
    const Model& model = files_.at(s.file);
    const std::string tensor = substitute_step(s.tensor, step);
    const TensorEntry* entry = model.find_tensor(tensor);
    if (entry == nullptr) continue;  // cli.md: a step whose tensor the file lacks inserts nothing
    try {
      exec.insert(s.name, model.tensor(*entry));
    } catch (const Error& e) {
      throw Error(e.kind(),
                  "--input " + s.name + " (tensor '" + tensor + "' of " + s.file + ", step " +
                      std::to_string(step) + "): " + e.what(),
                  e.where())
          .with_context(e.context());
    }
    inserted.push_back(s.name);
  }
  return inserted;
}

}  // namespace oi::cli
