// Files on disk: the mmap-backed open, lazy views that outlive the Model, atomic writes.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "openinfer/model.hpp"
#include "test_support.hpp"

using namespace oinf_test;
namespace fs = std::filesystem;

namespace {

// A fresh directory removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("oinf_file_test_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_raw(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

size_t entries_in(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(write_then_open_maps_the_file) {
  TempDir dir;
  const fs::path file = dir.path / "model.oinf";
  oi::ModelWriter w;
  w.add_sizevar("B", 4);
  w.add_metadata("mode", oi::MetaValue::string("clamp_up"));
  w.add_tensor("a", oi::Tensor::from(std::vector<float>{1, 2, 3, 4}));
  w.write(file);
  BOOST_TEST(entries_in(dir.path) == 1u);  // no temporary file left behind
  BOOST_TEST((read_file(file) == fixture("example.oinf")));
  BOOST_TEST(((fs::status(file).permissions() & fs::perms::others_read) != fs::perms::none));

  oi::Tensor view;
  {
    const auto m = oi::Model::open(file);
    BOOST_TEST(m.origin() == file.string());
    BOOST_TEST(m.size_of("B") == 4u);
    view = m.tensor("a");
    BOOST_TEST(view.is_view());
  }
  // The Model is gone; the view keeps the mapping alive.
  BOOST_TEST(view.as<float>()[2] == 3.0f);
}

BOOST_AUTO_TEST_CASE(write_replaces_an_existing_file_atomically) {
  TempDir dir;
  const fs::path file = dir.path / "model.oinf";
  write_raw(file, Bytes(1000, std::byte{0x55}));
  oi::ModelWriter w;
  w.add_sizevar("B", 7);
  w.write(file);
  BOOST_TEST(oi::Model::open(file).size_of("B") == 7u);
  BOOST_TEST(fs::file_size(file) == 72u + 16u);
  BOOST_TEST(entries_in(dir.path) == 1u);
}

BOOST_AUTO_TEST_CASE(write_errors_leave_nothing_behind) {
  TempDir dir;
  oi::ModelWriter w;
  w.add_sizevar("B", 1);
  const fs::path missing_dir = dir.path / "no" / "such" / "model.oinf";
  BOOST_CHECK_EXCEPTION(w.write(missing_dir), oi::Error, [&](const oi::Error& e) {
    return std::string(e.what()).find(missing_dir.string() +
                                      ": cannot create a temporary file to write") == 0;
  });
  oi::ModelWriter bad;
  bad.add_sizevar("not ok", 1);
  BOOST_CHECK_THROW(bad.write(dir.path / "bad.oinf"), oi::Error);
  BOOST_TEST(entries_in(dir.path) == 0u);
}

BOOST_AUTO_TEST_CASE(open_errors_name_the_file) {
  TempDir dir;
  const fs::path missing = dir.path / "missing.oinf";
  BOOST_CHECK_EXCEPTION(oi::Model::open(missing), oi::Error, [&](const oi::Error& e) {
    return e.kind() == oi::ErrorKind::Input &&
           std::string(e.what()) ==
               missing.string() + ": cannot open the file: No such file or directory";
  });
  const fs::path empty = dir.path / "empty.oinf";
  write_raw(empty, {});
  BOOST_CHECK_EXCEPTION(oi::Model::open(empty), oi::Error, [&](const oi::Error& e) {
    return std::string(e.what()) ==
           empty.string() + ": header: file is 0 bytes, shorter than the 72-byte header";
  });
  BOOST_CHECK_EXCEPTION(oi::Model::open(dir.path), oi::Error, [&](const oi::Error& e) {
    return std::string(e.what()).find("not a regular file") != std::string::npos;
  });
  const fs::path broken = dir.path / "broken.oinf";
  write_raw(broken, patch_u64(fixture("example.oinf"), 61, 300));
  BOOST_CHECK_EXCEPTION(oi::Model::open(broken), oi::Error, [&](const oi::Error& e) {
    return std::string(e.what()) ==
           broken.string() + ": header: file_size 300 does not match the file length 200";
  });
}

BOOST_AUTO_TEST_CASE(opened_fixture_matches_in_memory_read) {
  const fs::path file = fs::path(OINF_FIXTURE_DIR) / "tensors.oinf";
  const auto mapped = oi::Model::open(file);
  const auto memory = oi::Model::from_bytes(read_file(file));
  BOOST_REQUIRE_EQUAL(mapped.tensors().size(), memory.tensors().size());
  for (const auto& e : memory.tensors())
    BOOST_TEST(mapped.tensor(e.name).bit_equal(memory.tensor(e)), e.name);
}
