#define BOOST_TEST_MODULE float_formats
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "float_reference.hpp"
#include "openinfer/float_formats.hpp"

using namespace oi;
using oi_test::NarrowFormat;
using oi_test::ReferenceRounder;

namespace {

uint32_t bits_of(float v) {
  return std::bit_cast<uint32_t>(v);
}
float float_of(uint32_t b) {
  return std::bit_cast<float>(b);
}

// One narrow format seen through the functions under test.
struct Narrow {
  const char* name;
  NarrowFormat fmt;
  uint32_t (*from_f32)(float);
  uint32_t (*from_f64)(double);
  float (*to_f32)(uint32_t);

  bool is_nan(uint32_t b) const {
    const uint32_t mag = b & ~fmt.sign_bit();
    return mag > fmt.inf_bits();
  }
  uint32_t quiet_bit() const { return 1u << (fmt.man_bits - 1); }
};

const Narrow kF16{"f16", oi_test::kHalf, [](float v) -> uint32_t { return f32_to_f16_bits(v); },
                  [](double v) -> uint32_t { return f64_to_f16_bits(v); },
                  [](uint32_t b) { return f16_bits_to_f32(uint16_t(b)); }};
const Narrow kBF16{"bf16", oi_test::kBFloat,
                   [](float v) -> uint32_t { return f32_to_bf16_bits(v); },
                   [](double v) -> uint32_t { return f64_to_bf16_bits(v); },
                   [](uint32_t b) { return bf16_bits_to_f32(uint16_t(b)); }};
const Narrow kF8{"f8", oi_test::kE5M2, [](float v) -> uint32_t { return f32_to_f8_bits(v); },
                 [](double v) -> uint32_t { return f64_to_f8_bits(v); },
                 [](uint32_t b) { return f8_bits_to_f32(uint8_t(b)); }};
const Narrow* const kAllNarrow[] = {&kF16, &kBF16, &kF8};

std::vector<unsigned char> read_fixture(const std::string& name) {
  const std::string path = std::string(OPENINFER_SOURCE_DIR) + "/tests/core/fixtures/" + name;
  std::ifstream in(path, std::ios::binary);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint16_t le16(const unsigned char* p) {
  return uint16_t(p[0] | p[1] << 8);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_pattern_widens_then_narrows_back) {
  for (const Narrow* n : kAllNarrow) {
    const uint32_t count = 1u << (n->fmt.exp_bits + n->fmt.man_bits + 1);
    int failures = 0;
    for (uint32_t b = 0; b < count && failures < 10; ++b) {
      const float wide = n->to_f32(b);
      const uint32_t via_f32 = n->from_f32(wide);
      const uint32_t via_f64 = n->from_f64(static_cast<double>(wide));
      if (n->is_nan(b)) {
        // NaN stays NaN with its sign; a quiet NaN's payload survives exactly.
        const uint32_t sign = b & n->fmt.sign_bit();
        const bool ok = std::isnan(wide) && n->is_nan(via_f32) && n->is_nan(via_f64) &&
                        (via_f32 & n->fmt.sign_bit()) == sign &&
                        (via_f64 & n->fmt.sign_bit()) == sign &&
                        ((b & n->quiet_bit()) == 0 || (via_f32 == b && via_f64 == b));
        if (!ok) ++failures;
        BOOST_TEST(ok, n->name << " NaN pattern 0x" << std::hex << b);
      } else if (via_f32 != b || via_f64 != b) {
        ++failures;
        BOOST_TEST(via_f32 == b, n->name << " pattern 0x" << std::hex << b);
        BOOST_TEST(via_f64 == b, n->name << " pattern 0x" << std::hex << b);
      }
    }
    BOOST_TEST(failures == 0, n->name);
  }
}

BOOST_AUTO_TEST_CASE(f16_widening_matches_numpy_for_all_patterns) {
  const auto data = read_fixture("f16_to_f32.bin");
  BOOST_TEST_REQUIRE(data.size() == 65536u * 4);
  int failures = 0;
  for (uint32_t b = 0; b < 65536 && failures < 10; ++b) {
    const uint32_t expected = le32(&data[b * 4]);
    const uint32_t got = bits_of(f16_bits_to_f32(uint16_t(b)));
    if (got != expected) {
      ++failures;
      BOOST_TEST(got == expected, "f16 0x" << std::hex << b);
    }
  }
  BOOST_TEST(failures == 0);
}

BOOST_AUTO_TEST_CASE(widening_matches_formula) {
  for (const Narrow* n : kAllNarrow) {
    const uint32_t count = n->fmt.sign_bit() * 2;
    for (uint32_t b = 0; b < count; ++b) {
      if (n->is_nan(b)) continue;
      const uint32_t mag = b & ~n->fmt.sign_bit();
      long double v = mag == n->fmt.inf_bits() ? std::numeric_limits<long double>::infinity()
                                               : oi_test::format_value(n->fmt, mag);
      if (b & n->fmt.sign_bit()) v = -v;
      const float got = n->to_f32(b);
      BOOST_TEST(
          (static_cast<long double>(got) == v && std::signbit(got) == bool(b & n->fmt.sign_bit())),
          n->name << " 0x" << std::hex << b);
    }
  }
  // bf16 is by definition the upper half of an f32.
  for (uint32_t b = 0; b < 65536; ++b)
    BOOST_TEST(bits_of(bf16_bits_to_f32(uint16_t(b))) == (b << 16));
}

BOOST_AUTO_TEST_CASE(f32_to_f16_matches_numpy) {
  const auto data = read_fixture("f32_to_f16.bin");
  BOOST_TEST_REQUIRE(data.size() % 6 == 0);
  BOOST_TEST_REQUIRE(data.size() / 6 > 5000u);
  for (size_t i = 0; i < data.size(); i += 6) {
    const uint32_t in = le32(&data[i]);
    const uint16_t expected = le16(&data[i + 4]);
    const uint16_t got = f32_to_f16_bits(float_of(in));
    if (kF16.is_nan(expected)) {
      // numpy keeps a signalling NaN's bits; we set the quiet bit. Both stay NaN.
      BOOST_TEST((kF16.is_nan(got) && (got & 0x8000) == (expected & 0x8000)),
                 "f32 0x" << std::hex << in);
    } else {
      BOOST_TEST(got == expected, "f32 0x" << std::hex << in);
    }
  }
}

// Inputs around every decision point: each representable value, the midpoints between
// neighbours, and the nearest f32/f64 values either side of them.
BOOST_AUTO_TEST_CASE(narrowing_matches_reference_at_every_midpoint) {
  for (const Narrow* n : kAllNarrow) {
    const ReferenceRounder ref(n->fmt);
    const auto& values = ref.values();
    int failures = 0;
    for (size_t i = 0; i + 1 < values.size() && failures < 10; ++i) {
      const double lo = double(values[i]), hi = double(values[i + 1]);
      const double mid = (lo + hi) / 2;  // exact: the formats have short mantissas
      const double inf = std::numeric_limits<double>::infinity();
      const double doubles[] = {lo,
                                mid,
                                std::nextafter(mid, 0.0),
                                std::nextafter(mid, inf),
                                std::nextafter(lo, inf),
                                std::nextafter(hi, 0.0)};
      for (double d : doubles) {
        for (double s : {d, -d}) {
          const uint32_t expected64 = ref.round(s);
          const uint32_t got64 = n->from_f64(s);
          const float f = static_cast<float>(s);
          const uint32_t expected32 = ref.round(f);
          const uint32_t got32 = n->from_f32(f);
          const float fu = std::nextafter(float(mid), float(inf)) * (s < 0 ? -1.f : 1.f);
          const float fd = std::nextafter(float(mid), 0.f) * (s < 0 ? -1.f : 1.f);
          if (got64 != expected64 || got32 != expected32 || n->from_f32(fu) != ref.round(fu) ||
              n->from_f32(fd) != ref.round(fd)) {
            ++failures;
            BOOST_TEST(got64 == expected64, n->name << " from f64 " << s);
            BOOST_TEST(got32 == expected32, n->name << " from f32 " << f);
            BOOST_TEST(n->from_f32(fu) == ref.round(fu), n->name << " from f32 " << fu);
            BOOST_TEST(n->from_f32(fd) == ref.round(fd), n->name << " from f32 " << fd);
          }
        }
      }
    }
    BOOST_TEST(failures == 0, n->name);
  }
}

BOOST_AUTO_TEST_CASE(narrowing_matches_reference_on_random_patterns) {
  std::mt19937_64 rng(12345);
  for (const Narrow* n : kAllNarrow) {
    const ReferenceRounder ref(n->fmt);
    int failures = 0;
    for (int i = 0; i < 300000 && failures < 10; ++i) {
      const uint64_t r = rng();
      const float f = float_of(uint32_t(r));
      const double d = std::bit_cast<double>(r);
      // Also doubles with exponents near the target's range, where rounding is interesting.
      const double near =
          std::ldexp(1.0 + double(r >> 12) / 0x1p52, int(r % 80) - 50) * ((r >> 11) & 1 ? -1 : 1);
      for (double x : {double(f), d, near}) {
        if (std::isnan(x)) continue;
        const uint32_t got = n->from_f64(x);
        if (got != ref.round(x)) {
          ++failures;
          BOOST_TEST(got == ref.round(x), n->name << " from f64 " << x);
        }
      }
      if (!std::isnan(f) && n->from_f32(f) != ref.round(f)) {
        ++failures;
        BOOST_TEST(n->from_f32(f) == ref.round(f), n->name << " from f32 " << f);
      }
    }
    BOOST_TEST(failures == 0, n->name);
  }
}

BOOST_AUTO_TEST_CASE(f16_named_cases) {
  BOOST_TEST(f32_to_f16_bits(65504.f) == 0x7bff);    // largest finite
  BOOST_TEST(f32_to_f16_bits(65519.99f) == 0x7bff);  // just below the midpoint
  BOOST_TEST(f32_to_f16_bits(65520.f) == 0x7c00);    // midpoint to 2^16: ties to inf
  BOOST_TEST(f32_to_f16_bits(-65520.f) == 0xfc00);
  BOOST_TEST(f64_to_f16_bits(65519.999999) == 0x7bff);
  BOOST_TEST(f64_to_f16_bits(1e300) == 0x7c00);
  BOOST_TEST(f32_to_f16_bits(0x1p-24f) == 0x0001);  // smallest subnormal
  BOOST_TEST(f32_to_f16_bits(0x1p-25f) == 0x0000);  // tie with zero: even
  BOOST_TEST(f32_to_f16_bits(std::nextafter(0x1p-25f, 1.f)) == 0x0001);
  BOOST_TEST(f32_to_f16_bits(-0x1p-26f) == 0x8000);  // underflow keeps the sign
  BOOST_TEST(f64_to_f16_bits(-4.9e-324) == 0x8000);
  BOOST_TEST(f32_to_f16_bits(1.5f * 0x1p-24f) == 0x0002);     // tie between 1 and 2 ulps
  BOOST_TEST(f32_to_f16_bits(2.5f * 0x1p-24f) == 0x0002);     // tie between 2 and 3 ulps
  BOOST_TEST(f32_to_f16_bits(1023.5f * 0x1p-24f) == 0x0400);  // rounds up into the normals
  BOOST_TEST(f32_to_f16_bits(0x1p-14f) == 0x0400);            // smallest normal
  BOOST_TEST(f32_to_f16_bits(-0.0f) == 0x8000);
  BOOST_TEST(f32_to_f16_bits(1.f + 0x1p-11f) == 0x3c00);      // tie, 1.0 is even
  BOOST_TEST(f32_to_f16_bits(1.f + 3 * 0x1p-11f) == 0x3c02);  // tie, 1+2^-9 is even
  BOOST_TEST(f32_to_f16_bits(1.f + 0x1p-11f + 0x1p-23f) == 0x3c01);
  // One rounding from f64: via f32 this value would first become the exact midpoint.
  BOOST_TEST(f64_to_f16_bits(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01);
  BOOST_TEST(f32_to_f16_bits(float(1.0 + 0x1p-11 + 0x1p-40)) == 0x3c00);
  BOOST_TEST(f32_to_f16_bits(std::numeric_limits<float>::infinity()) == 0x7c00);
}

BOOST_AUTO_TEST_CASE(bf16_and_f8_named_cases) {
  BOOST_TEST(f32_to_bf16_bits(1.f + 0x1p-8f) == 0x3f80);
  BOOST_TEST(f32_to_bf16_bits(1.f + 3 * 0x1p-8f) == 0x3f82);
  BOOST_TEST(f32_to_bf16_bits(float_of(0x7f7f7fff)) == 0x7f7f);
  BOOST_TEST(f32_to_bf16_bits(float_of(0x7f7f8000)) == 0x7f80);  // tie past max: inf
  BOOST_TEST(f32_to_bf16_bits(float_of(0x00008000)) == 0x0000);  // subnormal tie with zero
  BOOST_TEST(f32_to_bf16_bits(float_of(0x00018000)) == 0x0002);
  BOOST_TEST(f32_to_bf16_bits(float_of(0x80000001)) == 0x8000);
  BOOST_TEST(f64_to_bf16_bits(1e-300) == 0x0000);
  BOOST_TEST(f64_to_bf16_bits(-1e300) == 0xff80);

  BOOST_TEST(f32_to_f8_bits(57344.f) == 0x7b);  // largest finite
  BOOST_TEST(f32_to_f8_bits(61439.996f) == 0x7b);
  BOOST_TEST(f32_to_f8_bits(61440.f) == 0x7c);  // midpoint to 2^16: inf
  BOOST_TEST(f32_to_f8_bits(-61440.f) == 0xfc);
  BOOST_TEST(f32_to_f8_bits(0x1p-16f) == 0x01);  // smallest subnormal
  BOOST_TEST(f32_to_f8_bits(0x1p-17f) == 0x00);  // tie with zero
  BOOST_TEST(f32_to_f8_bits(-0x1p-17f) == 0x80);
  BOOST_TEST(f32_to_f8_bits(3 * 0x1p-17f) == 0x02);
  BOOST_TEST(f32_to_f8_bits(1.125f) == 0x3c);  // tie, 1.0 is even
  BOOST_TEST(f32_to_f8_bits(1.375f) == 0x3e);  // tie, 1.5 is even
  BOOST_TEST(f32_to_f8_bits(1.376f) == 0x3e);
  BOOST_TEST(f32_to_f8_bits(1.374f) == 0x3d);
  BOOST_TEST(f8_bits_to_f32(0x01) == 0x1p-16f);
  BOOST_TEST(f8_bits_to_f32(0x7b) == 57344.f);
  BOOST_TEST(std::isinf(f8_bits_to_f32(0x7c)));
  BOOST_TEST(std::isnan(f8_bits_to_f32(0x7d)));
  BOOST_TEST(bits_of(f8_bits_to_f32(0x80)) == 0x80000000u);
}

BOOST_AUTO_TEST_CASE(nan_stays_nan_with_high_payload_bits) {
  BOOST_TEST(f32_to_f16_bits(float_of(0x7fc00000)) == 0x7e00);
  BOOST_TEST(f32_to_f16_bits(float_of(0xffc00000)) == 0xfe00);
  // A payload only in the low bits would truncate to the inf pattern: the quiet bit is set.
  BOOST_TEST(f32_to_f16_bits(float_of(0x7f800001)) == 0x7e00);
  BOOST_TEST(f32_to_f16_bits(float_of(0x7fd00000)) == 0x7e80);  // high payload bits kept
  BOOST_TEST(f32_to_bf16_bits(float_of(0x7f800001)) == 0x7fc0);
  BOOST_TEST(f32_to_bf16_bits(float_of(0xff910000)) == 0xffd1);
  BOOST_TEST(f32_to_f8_bits(float_of(0x7f800001)) == 0x7e);
  BOOST_TEST(f32_to_f8_bits(float_of(0xffa00000)) == 0xff);
  BOOST_TEST(f64_to_f16_bits(std::bit_cast<double>(0x7ff0000000000001ull)) == 0x7e00);
  BOOST_TEST(f64_to_f8_bits(std::bit_cast<double>(0xfff8000000000000ull)) == 0xfe);
  BOOST_TEST(std::isnan(f64_to_f32(std::bit_cast<double>(0x7ff0000000000001ull))));
  // Widening keeps the payload exactly.
  BOOST_TEST(bits_of(f16_bits_to_f32(0x7c01)) == 0x7f802000u);
  BOOST_TEST(bits_of(f8_bits_to_f32(0xfd)) == 0xffa00000u);
}

BOOST_AUTO_TEST_CASE(f64_to_f32_matches_the_hardware_cast) {
  std::mt19937_64 rng(777);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t r = rng();
    // Half the samples near the f32 range (subnormals and overflow included).
    const double x = (i % 2) ? std::bit_cast<double>(r)
                             : std::ldexp(1.0 + double(r >> 12) / 0x1p52, int(r % 300) - 160);
    if (std::isnan(x)) continue;
    BOOST_TEST(bits_of(f64_to_f32(x)) == bits_of(static_cast<float>(x)), "x = " << x);
  }
  BOOST_TEST(bits_of(f64_to_f32(-0.0)) == 0x80000000u);
  BOOST_TEST(bits_of(f64_to_f32(0x1p-150)) == 0u);  // tie with zero
  BOOST_TEST(bits_of(f64_to_f32(0x1p-150 + 0x1p-200)) == 1u);
  BOOST_TEST(bits_of(f64_to_f32(0x1p128 * (1 - 0x1p-25))) == 0x7f800000u);  // tie past max
}

BOOST_AUTO_TEST_CASE(storage_structs_wrap_the_conversions) {
  BOOST_TEST(f16(1.0f).bits == 0x3c00);
  BOOST_TEST(float(f16::from_bits(0xc000)) == -2.0f);
  BOOST_TEST(bf16(1.0f).bits == 0x3f80);
  BOOST_TEST(float(bf16::from_bits(0x4040)) == 3.0f);
  BOOST_TEST(f8(1.0f).bits == 0x3c);
  BOOST_TEST(float(f8::from_bits(0x40)) == 2.0f);
}
