#include "segments.hpp"

#include <algorithm>
#include <cmath>

namespace silero_vad {

std::vector<Segment> speech_segments(const std::vector<float>& probs, int64_t total_samples,
                                     const SegmentOptions& o) {
  const double neg = o.neg_threshold >= 0 ? o.neg_threshold : std::max(o.threshold - 0.15, 0.01);
  const double min_speech = o.sample_rate * o.min_speech_ms / 1000;
  const double min_silence = o.sample_rate * o.min_silence_ms / 1000;
  const double pad = o.sample_rate * o.speech_pad_ms / 1000;

  std::vector<Segment> speeches;
  bool triggered = false;
  int64_t temp_end = 0;  // where the current silence began; 0: none (as in the reference)
  int64_t start = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    const int64_t cur = static_cast<int64_t>(i) * o.chunk;
    const double p = probs[i];
    if (p >= o.threshold && temp_end) temp_end = 0;
    if (p >= o.threshold && !triggered) {
      triggered = true;
      start = cur;
      continue;
    }
    if (p < neg && triggered) {
      if (!temp_end) temp_end = cur;
      if (cur - temp_end < min_silence) continue;
      if (temp_end - start >= min_speech) speeches.push_back({start, temp_end});
      triggered = false;
      temp_end = 0;
    }
  }
  if (triggered && total_samples - start >= min_speech) speeches.push_back({start, total_samples});

  // Pad both sides, never past the neighbours (their unpadded ends) or the audio.
  std::vector<Segment> padded = speeches;
  for (size_t i = 0; i < speeches.size(); ++i) {
    const double prev_end = i == 0 ? 0.0 : static_cast<double>(padded[i - 1].end_sample);
    const double next_start = i + 1 == speeches.size()
                                  ? static_cast<double>(total_samples)
                                  : static_cast<double>(speeches[i + 1].start_sample);
    const double pad_start = std::max(speeches[i].start_sample - pad, prev_end);
    const double pad_end = std::min(speeches[i].end_sample + pad, next_start);
    padded[i].start_sample = std::max<int64_t>(0, static_cast<int64_t>(std::floor(pad_start)));
    padded[i].end_sample =
        std::min<int64_t>(total_samples, static_cast<int64_t>(std::floor(pad_end)));
  }
  return padded;
}

}  // namespace silero_vad
