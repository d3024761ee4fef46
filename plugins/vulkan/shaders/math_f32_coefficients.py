#!/usr/bin/python3
"""The constants of math_f32.glsl, printed as GLSL (reproducible with Debian's python3-mpmath;
run: /usr/bin/python3 plugins/vulkan/shaders/math_f32_coefficients.py). With --check it compares
them with the block in math_f32.glsl instead and fails, with the difference, where they differ
(CTest's math_f32_constants_current); --write puts them there.

math_f32.glsl computes ops-nn.md's f32 math in f32 arithmetic, with double-f32 ("float-float")
steps where one rounding would cost too much. Every constant a float-float step uses is split
into a head and a tail (each an f32, the tail the rest rounded once). The bounds printed next to
each approximation are relative to the function, far below f32's 2^-24:
  * ln 2 in three parts L1 + L2 + L3, L1 and L2 of 15 significant bits, so k * L1 and k * L2
    are exact for |k| < 512 (exp's and log's argument reduction).
  * 2/pi in 32-bit words for sin/cos's exact reduction (Payne-Hanek on integers).
  * Taylor coefficients: e^r, sin, cos, log's atanh series, erf(x)/x in x^2.
  * erfc(z) = e^(-z^2) F(z) for 1 <= z <= 12: F a Chebyshev fit (mpmath.chebyfit) on each of
    six intervals in w = (z - c) / h, w in [-1, 1].
"""
import contextlib
import difflib
import io
import os
import sys
import textwrap

import mpmath as mp

mp.mp.dps = 120
ERFC_INTERVALS = [(1, 2), (2, 3), (3, 4), (4, 6), (6, 8), (8, 12)]
ERFC_DEGREE = 10
ERF_TERMS = 13  # erf(x)/x to t^12, t = x^2 <= 1


def f32(x):
    """x rounded to the nearest f32 (nearest even), as an mpf."""
    x = mp.mpf(x)
    if x == 0:
        return mp.mpf(0)
    e = int(mp.floor(mp.log(abs(x), 2)))
    scale = mp.mpf(2) ** (23 - e)
    m = x * scale
    r = mp.floor(m)
    frac = m - r
    if frac > 0.5 or (frac == 0.5 and int(r) % 2 == 1):
        r += 1
    return r / scale


def lit(x):
    """A GLSL float literal that parses to the f32 x exactly (9 significant digits suffice)."""
    x = f32(x)
    if x == 0:
        return "0.0"
    s = mp.nstr(x, 9, min_fixed=-4, max_fixed=6)
    if "e" not in s and "." not in s:
        s += ".0"
    assert f32(mp.mpf(s)) == x, (s, x)
    return s


def split(x):
    hi = f32(x)
    return hi, f32(x - hi)


def head_bits(x, bits):
    e = mp.floor(mp.log(abs(x), 2))
    scale = mp.mpf(2) ** (bits - 1 - e)
    return mp.floor(x * scale) / scale


def comment(text):
    print("\n".join(textwrap.wrap(text, 97, initial_indent="// ", subsequent_indent="// ")))


def const(name, x):
    print(f"const float {name} = {lit(x)};")


def const_df(name, x):
    hi, lo = split(x)
    print(f"const vec2 {name} = vec2({lit(hi)}, {lit(lo)});")


def array(name, values, per_line=4):
    print(f"const float {name}[{len(values)}] = float[](")
    items = [lit(v) for v in values]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    print("    " + ",\n    ".join(lines) + ");")


def main():
    ln2 = mp.log(2)
    l1 = head_bits(ln2, 15)
    l2 = head_bits(ln2 - l1, 15)
    l3 = f32(ln2 - l1 - l2)
    comment(f"ln 2 = M32_LN2_1 + M32_LN2_2 + M32_LN2_3 (+ {mp.nstr(ln2 - l1 - l2 - l3, 3)})")
    const("M32_LN2_1", l1)
    const("M32_LN2_2", l2)
    const("M32_LN2_3", l3)
    const("M32_INV_LN2", 1 / ln2)
    words = []
    v = 2 / mp.pi
    for _ in range(10):
        v *= 2 ** 32
        w = int(mp.floor(v))
        words.append(w)
        v -= w
    comment("2/pi = sum of M32_TWO_OVER_PI[j] 2^(-32 (j + 1)) (+ less than 2^-320)")
    print("const uint M32_TWO_OVER_PI[10] = uint[](")
    print("    " + ",\n    ".join(", ".join(f"0x{w:08X}u" for w in words[i:i + 5])
                                  for i in range(0, 10, 5)) + ");")
    const_df("M32_PIO2", mp.pi / 2)
    const_df("M32_SIXTH", mp.mpf(1) / 6)
    const_df("M32_TWO_THIRDS", mp.mpf(2) / 3)
    const_df("M32_TWO_OVER_SQRTPI", 2 / mp.sqrt(mp.pi))
    const_df("M32_SQRT_HALF", 1 / mp.sqrt(2))
    const_df("M32_SQRT_2_OVER_PI", mp.sqrt(2 / mp.pi))
    const_df("M32_GELU_TANH_C3", mp.sqrt(2 / mp.pi) * mp.mpf("0.044715"))
    r = mp.log(2) / 2
    trunc = r ** 10 / mp.factorial(10)
    comment(f"(e^r - 1 - r - r^2/2) / r^3 to r^6: truncation {mp.nstr(trunc, 3)} for |r| <= ln2/2")
    array("M32_EXP_P", [1 / mp.factorial(n) for n in range(9, 2, -1)])
    f = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
    comment("ln m = 2f + 2f^3/3 + f^5 T(f^2), f = (m-1)/(m+1), T to f^12: truncation "
            f"{mp.nstr(f ** 16 / 17, 3)} of 2f")
    array("M32_LOG_T", [mp.mpf(2) / (2 * n + 1) for n in range(8, 1, -1)])
    q = (mp.pi / 4) ** 2
    ts, tc = q ** 7 / mp.factorial(15), q ** 7 / mp.factorial(14)
    comment("sin r = r - r^3/6 + r^5 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4: "
            f"truncation {mp.nstr(ts, 3)}, {mp.nstr(tc, 3)}")
    array("M32_SIN_S", [(-1) ** n / mp.factorial(2 * n + 1) for n in range(6, 1, -1)])
    array("M32_COS_C", [(-1) ** n / mp.factorial(2 * n) for n in range(6, 1, -1)])
    erf = [2 / mp.sqrt(mp.pi) * (-1) ** n / (mp.factorial(n) * (2 * n + 1))
           for n in range(ERF_TERMS)]
    comment(f"erf(x)/x = sum c_n t^n, t = x^2 < 1, lowest first; truncation "
            f"{mp.nstr(abs(erf[-1]) / (ERF_TERMS + 1), 3)}; c0..c2 float-float (tails in _LO)")
    array("M32_ERF_C", erf)
    array("M32_ERF_LO", [split(c)[1] for c in erf[:3]])
    his, los, centers, scales, worst = [], [], [], [], 0
    for a, b in ERFC_INTERVALS:
        c, h = mp.mpf(a + b) / 2, mp.mpf(b - a) / 2
        coef, err = mp.chebyfit(lambda w: mp.exp((c + h * w) ** 2) * mp.erfc(c + h * w),
                                [-1, 1], ERFC_DEGREE + 1, error=True)
        worst = max(worst, err / (mp.exp(mp.mpf(b) ** 2) * mp.erfc(b)))
        coef = list(reversed(coef))  # lowest first
        his += [split(x)[0] for x in coef]
        los += [split(x)[1] for x in coef[:3]]
        centers.append(c)
        scales.append(1 / h)
    comment("erfc(z) e^(z^2) on [1, 2] [2, 3] [3, 4] [4, 6] [6, 8] [8, 12], degree "
            f"{ERFC_DEGREE} in w = (z - centre) * scale (centres "
            f"{', '.join(mp.nstr(c, 3) for c in centers)}; scales "
            f"{', '.join(mp.nstr(c, 3) for c in scales)}), lowest first; fit error below "
            f"{mp.nstr(worst, 3)} relative")
    array("M32_ERFC_C", his)
    array("M32_ERFC_LO", los)


GLSL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "math_f32.glsl")
BEGIN = "// ---- constants: plugins/vulkan/shaders/math_f32_coefficients.py ----\n"
END = "// Horner steps written out"


def committed_block(text):
    start = text.index(BEGIN) + len(BEGIN)
    return start, text.index(END, start)


if __name__ == "__main__":
    if len(sys.argv) == 1:
        main()
        sys.exit(0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main()
    want = out.getvalue() + "\n"
    with open(GLSL, encoding="utf-8") as f:
        text = f.read()
    start, end = committed_block(text)
    if sys.argv[1] == "--write":
        with open(GLSL, "w", encoding="utf-8") as f:
            f.write(text[:start] + want + text[end:])
        sys.exit(0)
    if sys.argv[1] != "--check":
        sys.exit("usage: math_f32_coefficients.py [--check | --write]")
    if text[start:end] == want:
        print("math_f32.glsl's constants are what math_f32_coefficients.py prints")
        sys.exit(0)
    sys.stdout.writelines(difflib.unified_diff(text[start:end].splitlines(True),
                                               want.splitlines(True), "math_f32.glsl",
                                               "math_f32_coefficients.py"))
    sys.exit("math_f32.glsl's constants differ: run /usr/bin/python3 "
             "plugins/vulkan/shaders/math_f32_coefficients.py --write")
