#include "silero_stream.hpp"

#include <algorithm>
#include <stdexcept>

namespace silero_vad {

SileroStream::SileroStream(const std::string& model_path, const std::string& graph_path,
                           const std::string& build_plugin_dir)
    : model_(oi::Model::open(model_path)),
      graph_(oi::Graph::load(graph_path)),
      registry_(oi::PluginRegistry::discover(oi::plugin_search_path({}, build_plugin_dir))),
      sim_(model_, graph_, registry_.backend("cpu")),
      exec_(sim_.make_executor()),
      chunk_(oi::DType::f32, oi::Shape{1, kChunk}) {}

float SileroStream::push(std::span<const float> samples) {
  if (samples.size() > kChunk)
    throw std::invalid_argument("SileroStream::push: " + std::to_string(samples.size()) +
                                " samples, at most " + std::to_string(kChunk) + " per chunk");
  auto dst = chunk_.as_mut<float>();
  std::copy(samples.begin(), samples.end(), dst.begin());
  std::fill(dst.begin() + static_cast<std::ptrdiff_t>(samples.size()), dst.end(), 0.0f);
  exec_.insert("chunk", chunk_);
  exec_.step();
  return exec_.fetch<float>("prob")[0];
}

std::string SileroStream::device_name() const {
  return registry_.backend("cpu")->device_name();
}

void SileroStream::reset() {
  exec_ = sim_.make_executor();
}

}  // namespace silero_vad
