#!/usr/bin/python3
"""The constants of vector_math_kernels.inc, printed as C++ (reproducible with Debian's
python3-mpmath; run: /usr/bin/python3 plugins/cpu/vector_math_coefficients.py).

The kernels evaluate in double lanes and round once to f32, so each approximation only needs a
relative error far below f32's 2^-24; the bound each one reaches is printed next to it.
  * erfc(z), 0 <= z <= 10.5: t * exp(h(s) - z^2) with t = 2 / (2 + z) and s mapping
    t in [0.16, 1] onto [-1, 1]; h is a Chebyshev fit (mpmath.chebyfit), its absolute error is
    the relative error it gives erfc.
  * erf(x) / x for |x| <= 0.5: the Taylor series in x^2.
  * Cody-Waite split of pi/2 into two 32-bit heads and a tail, so k * head is exact for
    |k| < 2^21.
  * e^x's table 2^(j/64), j < 64, each rounded once, and ln2/64 split as pi/2 is.
"""
import mpmath as mp

mp.mp.dps = 50
T_LO, T_HI = mp.mpf(2) / mp.mpf("12.5"), mp.mpf(1)
ERFC_DEGREE = 12
ERF_TERMS = 9


def h_of_s(s):
    t = (T_LO + T_HI) / 2 + s * (T_HI - T_LO) / 2
    z = 2 / t - 2
    if z == 0:
        return mp.mpf(0)
    return mp.log(mp.erfc(z) / t) + z * z


def emit(name, values, note):
    print(f"// {note}")
    print(f"constexpr double {name}[] = {{")
    for v in values:
        print(f"    {float(v)!r},")
    print("};")


def head_bits(x, bits):
    """x truncated to `bits` significant bits."""
    e = mp.floor(mp.log(abs(x), 2))
    scale = mp.mpf(2) ** (bits - 1 - e)
    return mp.floor(x * scale) / scale


def main():
    coeffs, err = mp.chebyfit(h_of_s, [-1, 1], ERFC_DEGREE + 1, error=True)
    emit("kErfcH", coeffs, f"h(s), highest power first; max abs error {mp.nstr(err, 3)}")
    print(f"constexpr double kErfcTMid = {float((T_LO + T_HI) / 2)!r};")
    print(f"constexpr double kErfcTInvHalf = {float(2 / (T_HI - T_LO))!r};")
    erf = [2 / mp.sqrt(mp.pi) * (-1) ** n / (mp.factorial(n) * (2 * n + 1))
           for n in range(ERF_TERMS)]
    tail = mp.mpf("0.25") ** ERF_TERMS / (mp.factorial(ERF_TERMS) * (2 * ERF_TERMS + 1))
    emit("kErfSmall", reversed(erf), f"erf(x)/x in x^2, highest first; truncation < "
         f"{mp.nstr(tail, 3)} relative")
    half_pi = mp.pi / 2
    p1 = head_bits(half_pi, 32)
    p2 = head_bits(half_pi - p1, 32)
    p3 = half_pi - p1 - p2
    print("// pi/2 = kHalfPi1 + kHalfPi2 + kHalfPi3 (+ " +
          mp.nstr(half_pi - p1 - p2 - mp.mpf(float(p3)), 3) + ")")
    for name, v in (("kHalfPi1", p1), ("kHalfPi2", p2), ("kHalfPi3", p3)):
        print(f"constexpr double {name} = {float(v)!r};")
    emit("kExp2Table", [mp.power(2, mp.mpf(j) / 64) for j in range(64)], "2^(j/64), j < 64")
    ln2_64 = mp.log(2) / 64
    hi = head_bits(ln2_64, 32)
    print(f"constexpr double kLn2Over64Hi = {float(hi)!r};")
    print(f"constexpr double kLn2Over64Lo = {float(ln2_64 - hi)!r};")
    print(f"constexpr double k64OverLn2 = {float(1 / ln2_64)!r};")


if __name__ == "__main__":
    main()
