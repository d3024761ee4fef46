// libFuzzer entry point for the OINF reader: any bytes must either load, with every accessor
// answering and every value readable, or be rejected with oi::Error. Anything else (a crash,
// another exception, a sanitizer report) is a bug. Each input is read twice: from memory and
// through Model::open's file mapping, whose payload pages are only read on first touch; and a
// package that loads must survive the text form (dump, pack) unchanged.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "openinfer/model.hpp"
#include "openinfer/oinf_text.hpp"

namespace {

// Declarations give zero-filled tensors of their declared size; skip the ones a corrupt
// header makes enormous (that is an allocation, not a reader bug).
constexpr uint64_t kMaxDeclarationBytes = uint64_t{1} << 24;

bool small_enough(const oi::TensorEntry& e) {
  if (e.has_data) return true;
  const auto n = oi::checked_numel(e.dims);
  const auto nbytes = n ? oi::storage_bytes(e.dtype, *n) : std::nullopt;
  return nbytes && *nbytes <= kMaxDeclarationBytes;
}

// Every accessor of a model that loaded; returns whether all declarations were small enough
// for the text form.
bool read_everything(const oi::Model& model) {
  volatile uint64_t sink = model.file_size();
  for (const auto& s : model.sizevars()) {
    sink = sink + model.size_of(s.name);
    if (model.find_sizevar(s.name) != s.value) __builtin_trap();
  }
  for (const auto& e : model.metadata()) {
    if (model.find_metadata(e.key) == nullptr) __builtin_trap();
    const auto v = model.metadata_value(e.key);
    sink = sink + oi_fuzz::touch(v.tensor.bytes()) + v.text.size() + v.bits.size();
    if (v.kind == oi::MetaValue::Kind::Bitset && v.bit_count > 0)
      sink = sink + v.bit(v.bit_count - 1);
  }
  bool all_small = true;
  for (const auto& e : model.tensors()) {
    if (model.find_tensor(e.name) == nullptr) __builtin_trap();
    if (!small_enough(e)) {
      all_small = false;
      continue;
    }
    const auto t = model.tensor(e.name);
    sink = sink + oi_fuzz::touch(t.bytes());
    if (e.has_data && !model.holds(t.bytes().data(), t.bytes().size()) && t.numel() > 0)
      __builtin_trap();
    if (t.numel() > 0) sink = sink + static_cast<uint64_t>(t.get_raw(t.numel() - 1));
  }
  // Missing names are errors, never crashes.
  if (model.find_tensor("\x01missing") != nullptr) __builtin_trap();
  try {
    (void)model.size_of("\x01missing");
    __builtin_trap();
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
  }
  return all_small;
}

// The text form of a model that loaded packs back to a model with the same text.
void round_trip_text(const oi::Model& model) {
  (void)oi::inspect_oinf(model);
  const std::string text = oi::dump_oinf_text(model);
  const auto packed = oi::parse_oinf_text(text, "dump.txt").to_bytes();
  const auto reread = oi::Model::from_bytes(packed, "packed.oinf");
  if (oi::dump_oinf_text(reread) != text) __builtin_trap();
}

// One scratch file per process for the mapped reads.
const std::string& scratch_path() {
  static const std::string path = "/tmp/oinf_reader_fuzz." + std::to_string(::getpid()) + ".oinf";
  return path;
}

void read_mapped(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(scratch_path().c_str(), "wb");
  if (f == nullptr) return;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return;
  try {
    read_everything(oi::Model::open(scratch_path()));
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = std::byte{data[i]};
  try {
    const auto model = oi::Model::from_bytes(std::move(bytes), "fuzz.oinf");
    if (read_everything(model)) round_trip_text(model);
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);  // rejected: the expected outcome for most inputs
  }
  read_mapped(data, size);
  return 0;
}
