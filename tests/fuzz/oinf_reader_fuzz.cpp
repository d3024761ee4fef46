// libFuzzer entry point for the OINF reader: any bytes must either load, with every value
// readable, or be rejected with oi::Error. Anything else (a crash, another exception, a
// sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "openinfer/model.hpp"

namespace {

// Declarations give zero-filled tensors of their declared size; skip the ones a corrupt
// header makes enormous (that is an allocation, not a reader bug).
constexpr uint64_t kMaxDeclarationBytes = uint64_t{1} << 24;

uint64_t touch(std::span<const std::byte> bytes) {
  uint64_t sum = 0;
  for (std::byte b : bytes) sum += std::to_integer<uint64_t>(b);
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = std::byte{data[i]};
  try {
    const auto model = oi::Model::from_bytes(std::move(bytes), "fuzz.oinf");
    volatile uint64_t sink = 0;
    for (const auto& s : model.sizevars()) sink = sink + model.size_of(s.name);
    for (const auto& e : model.metadata()) {
      const auto v = model.metadata_value(e);
      sink = sink + touch(v.tensor.bytes()) + v.text.size() + v.bits.size();
      if (v.kind == oi::MetaValue::Kind::Bitset && v.bit_count > 0)
        sink = sink + v.bit(v.bit_count - 1);
    }
    for (const auto& e : model.tensors()) {
      if (!e.has_data) {
        const auto n = oi::checked_numel(e.dims);
        const auto nbytes = n ? oi::storage_bytes(e.dtype, *n) : std::nullopt;
        if (!nbytes || *nbytes > kMaxDeclarationBytes) continue;
      }
      const auto t = model.tensor(e.name);
      sink = sink + touch(t.bytes());
      if (t.numel() > 0) sink = sink + static_cast<uint64_t>(t.get_raw(t.numel() - 1));
    }
  } catch (const oi::Error&) {
    // Rejected: the expected outcome for most inputs.
  }
  return 0;
}
