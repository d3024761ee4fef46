"""Elements as the text form prints them (docs/cli.md, "Values"): integers in decimal, bool as
true/false, floats as the shortest decimal that reads back to the same bits, laid out like
Python's repr, `inf`, `nan` for the canonical quiet NaN and `nan(0xHEX)` for any other NaN.
The same algorithm as core/src/oinf_text/float_text.cpp."""
import decimal

import numpy as np

from . import dtypes, floats

_BITS = {"f8": 8, "bf16": 16, "f16": 16, "f32": 32, "f64": 64}


def _to_double(dtype, raw):
    if dtype in ("f8", "bf16", "f16"):
        return float(floats.decode(np.array([raw]), dtype)[0])
    if dtype == "f32":
        return float(np.array([raw], np.uint32).view(np.float32)[0])
    return float(np.array([raw], np.uint64).view(np.float64)[0])


def _decimal_to_bits(dtype, text):
    """Reads a decimal as `pack` does: f32 from the decimal, the narrow formats through f64."""
    v = float(text)
    if dtype == "f64":
        return int(np.array([v]).view(np.uint64)[0])
    if dtype == "f32":
        with np.errstate(over="ignore"):  # beyond the largest f32: inf, as strtof
            return int(np.array([v], np.float32).view(np.uint32)[0])
    return int(floats.encode(np.array([v]), dtype)[0])


def _scientific(digits, exponent):
    return digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{exponent}"


def _parse_sci(s):
    mantissa, exp = s.split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exp)


def _step(digits, exponent, step):
    """The next/previous decimal with the same number of digits, or None at zero."""
    n = int(digits) + step
    if n <= 0:
        return None
    s = str(n)
    if len(s) > len(digits):  # 999 + 1 = 1000: one digit more, exponent up
        s, exponent = s[:-1], exponent + 1
    elif len(s) < len(digits):  # 100 - 1 = 99: keep the length with a trailing 9
        s, exponent = s + "9", exponent - 1
    return s.rstrip("0") or "0", exponent


def _shortest(dtype, abs_raw):
    v = _to_double(dtype, abs_raw)
    if dtype == "f64":
        return _repr_digits(v)
    for precision in range(1, 18):
        digits, exponent = _parse_sci(f"{v:.{precision - 1}e}")
        if _decimal_to_bits(dtype, _scientific(digits, exponent)) == abs_raw:
            return digits, exponent
        dv = float(_scientific(digits, exponent))
        stepped = _step(digits.ljust(precision, "0"), exponent, 1 if dv < v else -1)
        if stepped and _decimal_to_bits(dtype, _scientific(*stepped)) == abs_raw:
            return stepped
    return _repr_digits(v)  # 17 digits always round-trip; unreachable in practice


def _repr_digits(v):
    """Digits and decimal exponent of Python's repr of a positive double: its shortest."""
    t = decimal.Decimal(repr(v)).as_tuple()
    digits = "".join(map(str, t.digits)).lstrip("0")
    exponent = t.exponent + len(t.digits) - 1 - (len(t.digits) - len(digits))
    return digits.rstrip("0") or "0", exponent


def _layout(digits, exponent):
    """Positional for exponents -4..15, scientific otherwise (Python repr)."""
    n = len(digits)
    if -4 <= exponent < 16:
        if exponent < 0:
            return "0." + "0" * (-exponent - 1) + digits
        int_digits = exponent + 1
        if n <= int_digits:
            return digits + "0" * (int_digits - n) + ".0"
        return digits[:int_digits] + "." + digits[int_digits:]
    s = digits[0] + ("." + digits[1:] if n > 1 else "")
    return s + ("e-" if exponent < 0 else "e+") + f"{abs(exponent):02d}"


def canonical_nan_bits(dtype):
    f = floats.FORMATS[dtype]
    return (f.max_exp << f.man_bits) | (1 << (f.man_bits - 1))


def format_float(dtype, raw):
    f = floats.FORMATS[dtype]
    raw = int(raw)
    exp = (raw >> f.man_bits) & f.max_exp
    man = raw & ((1 << f.man_bits) - 1)
    if exp == f.max_exp and man:
        if raw == canonical_nan_bits(dtype):
            return "nan"
        return f"nan(0x{raw:0{_BITS[dtype] // 4}x})"
    sign_bit = 1 << f.sign_shift
    sign = "-" if raw & sign_bit else ""
    abs_raw = raw & ~sign_bit
    if abs_raw == f.inf_bits:
        return sign + "inf"
    if abs_raw == 0:
        return sign + "0.0"
    return sign + _layout(*_shortest(dtype, abs_raw))


def float_bits(dtype, raw):
    """The bits of a stored float element (f32/f64 raw values are floats, others bits)."""
    if isinstance(raw, (float, np.floating)):
        wide = dtype == "f64"
        return int(np.array([raw], np.float64 if wide else np.float32)
                   .view(np.uint64 if wide else np.uint32)[0])
    return int(raw)


def format_element(dtype, raw):
    """One element from its stored value (`Tensor.raw` element)."""
    dt = dtypes.get(dtype)
    if dt.kind == "float":
        return format_float(dt.name, float_bits(dt.name, raw))
    if dt.kind == "bool":
        return "true" if int(raw) else "false"
    return str(int(raw))
