#include "wav.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace silero_vad {
namespace {

uint16_t u16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t u32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

constexpr uint16_t kFormatPcm = 1;
constexpr uint16_t kFormatFloat = 3;
constexpr uint16_t kFormatExtensible = 0xFFFE;

struct Format {
  uint16_t code = 0;
  uint16_t channels = 0;
  uint32_t rate = 0;
  uint16_t bits = 0;
};

std::vector<float> decode(const Format& fmt, const unsigned char* data, size_t bytes) {
  const size_t width = fmt.bits / 8;
  std::vector<float> out(bytes / width);
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char* p = data + i * width;
    if (fmt.code == kFormatFloat) {
      std::memcpy(&out[i], p, 4);  // little-endian host, as everywhere OpenInfer runs
    } else if (fmt.bits == 16) {
      out[i] = static_cast<float>(static_cast<int16_t>(u16(p))) / 32768.0f;
    } else if (fmt.bits == 24) {
      const uint32_t bits = static_cast<uint32_t>(p[0]) << 8 | static_cast<uint32_t>(p[1]) << 16 |
                            static_cast<uint32_t>(p[2]) << 24;
      const int32_t v = static_cast<int32_t>(bits) >> 8;  // sign-extended 24-bit value
      out[i] = static_cast<float>(static_cast<double>(v) / 8388608.0);
    } else {
      out[i] = static_cast<float>(static_cast<double>(static_cast<int32_t>(u32(p))) / 2147483648.0);
    }
  }
  return out;
}

}  // namespace

Audio read_wav(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  const std::vector<unsigned char> buf((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  auto fail = [&](const std::string& what) { return std::runtime_error(path + ": " + what); };
  if (buf.size() < 12 || std::memcmp(buf.data(), "RIFF", 4) != 0 ||
      std::memcmp(buf.data() + 8, "WAVE", 4) != 0)
    throw fail("not a WAV file (no RIFF/WAVE header)");

  Format fmt;
  bool have_fmt = false;
  size_t pos = 12;
  while (pos + 8 <= buf.size()) {
    const unsigned char* chunk = buf.data() + pos;
    const uint32_t size = u32(chunk + 4);
    const size_t body = pos + 8;
    const size_t left = buf.size() - body;
    if (std::memcmp(chunk, "fmt ", 4) == 0) {
      if (size < 16 || left < 16) throw fail("the fmt chunk is truncated");
      fmt = {u16(chunk + 8), u16(chunk + 10), u32(chunk + 12), u16(chunk + 22)};
      if (fmt.code == kFormatExtensible) {
        if (size < 40 || left < 40) throw fail("the extensible fmt chunk is truncated");
        fmt.code = u16(chunk + 8 + 24);  // the sub-format GUID starts with the format code
      }
      have_fmt = true;
    } else if (std::memcmp(chunk, "data", 4) == 0) {
      if (!have_fmt) throw fail("the data chunk comes before the fmt chunk");
      if (fmt.channels != 1)
        throw fail("has " + std::to_string(fmt.channels) +
                   " channels; the VAD needs mono (sox IN.wav -c 1 OUT.wav)");
      const bool pcm =
          fmt.code == kFormatPcm && (fmt.bits == 16 || fmt.bits == 24 || fmt.bits == 32);
      const bool flt = fmt.code == kFormatFloat && fmt.bits == 32;
      if (!pcm && !flt)
        throw fail("unsupported sample format (code " + std::to_string(fmt.code) + ", " +
                   std::to_string(fmt.bits) + " bits); use PCM 16/24/32-bit or float 32-bit");
      // Streaming writers leave the size 0 or 0xFFFFFFFF: then the data runs to the end.
      size_t bytes = size;
      if (size == 0 || size == 0xFFFFFFFFu) {
        bytes = left;
      } else if (size > left) {
        throw fail("truncated: the data chunk holds " + std::to_string(size) +
                   " bytes but the file has " + std::to_string(left) + " after its header");
      }
      return Audio{fmt.rate, decode(fmt, buf.data() + body, bytes)};
    }
    if (size > left) break;
    pos = body + size + (size & 1u);
  }
  throw fail(have_fmt ? "no data chunk" : "no fmt chunk");
}

}  // namespace silero_vad
