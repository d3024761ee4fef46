// A slow, obviously-correct reference for narrowing to f16/bf16/f8, independent of the code
// under test: it lists every non-negative finite value of the target format by formula and
// picks the nearest one with exact long double comparisons.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace oi_test {

struct NarrowFormat {
  int exp_bits;
  int man_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  uint32_t inf_bits() const { return ((1u << exp_bits) - 1) << man_bits; }
  uint32_t sign_bit() const { return 1u << (exp_bits + man_bits); }
};

inline const NarrowFormat kHalf{5, 10};
inline const NarrowFormat kBFloat{8, 7};
inline const NarrowFormat kE5M2{5, 2};

// The value of a non-negative bit pattern; the inf pattern gives the next power of two past
// the largest finite value, which is where rounding with an unbounded exponent would land.
inline long double format_value(const NarrowFormat& f, uint32_t bits) {
  const uint32_t e = bits >> f.man_bits;
  const uint32_t m = bits & ((1u << f.man_bits) - 1);
  if (e == 0) return std::ldexp(static_cast<long double>(m), 1 - f.bias() - f.man_bits);
  return std::ldexp(static_cast<long double>((1u << f.man_bits) + m),
                    int(e) - f.bias() - f.man_bits);
}

class ReferenceRounder {
 public:
  explicit ReferenceRounder(NarrowFormat f) : f_(f) {
    for (uint32_t b = 0; b <= f.inf_bits(); ++b) values_.push_back(format_value(f, b));
  }

  // Expected bits for a non-NaN input: nearest value, ties to the even pattern, inf past max.
  uint32_t round(long double x) const {
    const uint32_t sign = std::signbit(x) ? f_.sign_bit() : 0;
    const long double a = std::fabs(x);
    if (a >= values_.back()) return sign | f_.inf_bits();
    const auto above = std::upper_bound(values_.begin(), values_.end(), a);
    const uint32_t lo = uint32_t(above - values_.begin() - 1);
    if (values_[lo] == a) return sign | lo;
    // 2a and lo + hi are exact in long double, so this comparison decides ties exactly.
    const long double twice = 2 * a, sum = values_[lo] + values_[lo + 1];
    if (twice < sum) return sign | lo;
    if (twice > sum) return sign | (lo + 1);
    return sign | ((lo % 2 == 0) ? lo : lo + 1);
  }

  const std::vector<long double>& values() const { return values_; }

 private:
  NarrowFormat f_;
  std::vector<long double> values_;  // indexed by bit pattern, 0 .. inf_bits
};

}  // namespace oi_test
