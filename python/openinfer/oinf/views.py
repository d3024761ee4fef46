"""Human and text views of a Package, as `openinfer oinf inspect` and `dump` print them
(docs/cli.md): sizevars, metadata, tensors, each sorted by name."""
import numpy as np

from . import dtypes
from .convert import to_package
from .text import format_element
from .values import Bitset, Declaration, NdArray, Scalar

_SHOWN = 5        # values shown at each end of a shortened list
_SHOWN_BITS = 32  # bits shown at each end of a shortened bitset


def _sorted(d):
    return sorted(d.items(), key=lambda kv: kv[0].encode())


def _values_text(t, shorten):
    flat = t.raw.reshape(-1)
    n = len(flat)
    if n == 0:
        return "{ }"
    if shorten and n > 2 * _SHOWN:
        parts = [format_element(t.dtype, v) for v in flat[:_SHOWN]] + ["..."] + \
                [format_element(t.dtype, v) for v in flat[n - _SHOWN:]]
    else:
        parts = [format_element(t.dtype, v) for v in flat]
    return "{ " + ", ".join(parts) + " }"


def _bits_text(b, shorten):
    bits = "".join("1" if x else "0" for x in b.bits)
    if shorten and b.bit_count > 2 * _SHOWN_BITS:
        bits = bits[:_SHOWN_BITS] + "..." + bits[-_SHOWN_BITS:]
    return "0b" + bits


def _g7(v):
    """printf's %.7g, which prints a NaN's sign ("-nan" from inf - inf on x86)."""
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    return "%.7g" % v


def _sequential_sum(values, term, chunk=1 << 20):
    """sum(term(v)) left to right in long double, as the C++ loop adds (cumsum is sequential,
    unlike np.sum), in chunks to bound the memory."""
    total = np.longdouble(0)
    for start in range(0, len(values), chunk):
        wide = values[start:start + chunk].astype(np.float64).astype(np.longdouble)
        total = np.cumsum(np.concatenate(([total], term(wide))))[-1]
    return total


def _stats_line(t):
    """"- [nbytes: N, min: .., max: .., mean: .., std: ..]": population std, sums in long
    double as the C++ does, NaNs left out and counted."""
    line = f"- [nbytes: {t.nbytes}"
    kind = dtypes.get(t.dtype).kind
    if kind in ("bool", "bitset"):
        return line + "]"
    values = t.numpy().reshape(-1)
    raw = t.raw.reshape(-1)
    keep = ~np.isnan(values) if kind == "float" else np.ones(len(values), bool)
    idx = np.flatnonzero(keep)
    nans = len(values) - len(idx)
    if len(idx):
        kept = values[idx]
        min_i, max_i = idx[np.argmin(kept)], idx[np.argmax(kept)]
        with np.errstate(all="ignore"):  # inf - inf is nan, as in C++
            n = np.longdouble(len(idx))
            mean = _sequential_sum(kept, lambda w: w) / n
            std = np.sqrt(_sequential_sum(kept, lambda w: (w - mean) * (w - mean)) / n)
        line += (f", min: {format_element(t.dtype, raw[min_i])}"
                 f", max: {format_element(t.dtype, raw[max_i])}"
                 f", mean: {_g7(float(mean))}, std: {_g7(float(std))}")
    if nans:
        line += f", nans: {nans}"
    return line + "]"


def inspect_text(pkg):
    """The `inspect` view: long lists shortened, a statistics line per tensor with data."""
    pkg = to_package(pkg)
    uses = {}
    for v in pkg.sizevars.values():
        uses[v] = uses.get(v, 0) + 1
    size_names = {v: k for k, v in pkg.sizevars.items() if uses[v] == 1}

    def dims(shape):
        return "[" + ", ".join(size_names.get(d, str(d)) for d in shape) + "]"

    out = [f"{k} := {v}\n" for k, v in _sorted(pkg.sizevars)]
    for key, v in _sorted(pkg.metadata):
        if isinstance(v, str):
            out.append(f'{key}: str = "{v}"\n')
        elif isinstance(v, Bitset):
            out.append(f"{key}: bitset[{v.bit_count}] = {_bits_text(v, True)}\n")
        elif isinstance(v, NdArray):
            out.append(f"{key}: ndarray {v.dtype}{dims(v.shape)} = {_values_text(v, True)}\n")
        else:
            out.append(f"{key}: {v.dtype} = {format_element(v.dtype, v.raw[()])}\n")
    for name, t in _sorted(pkg.tensors):
        line = f"{name}: {t.dtype}" + (dims(t.shape) if t.shape else "")
        if isinstance(t, Declaration):
            out.append(line + " -- uninitialized\n")
        elif not t.shape:
            out.append(f"{line} = {format_element(t.dtype, t.raw[()])}\n")
        else:
            out.append(f"{line} = {_values_text(t, True)}\n{_stats_line(t)}\n")
    return "".join(out)


def dump_text(pkg):
    """The complete text form (`openinfer oinf dump`): every value, numbers for dims."""
    pkg = to_package(pkg)
    def dims(shape):
        return "[" + ", ".join(str(d) for d in shape) + "]"

    out = ["# openinfer oinf text v1\n"]
    out += [f"{k} := {v}\n" for k, v in _sorted(pkg.sizevars)]
    for key, v in _sorted(pkg.metadata):
        if isinstance(v, str):
            out.append(f'@{key}: str = "{v}"\n')
        elif isinstance(v, Bitset):
            out.append(f"@{key}: bitset[{v.bit_count}] = {_bits_text(v, False)}\n")
        elif isinstance(v, NdArray):
            out.append(f"@{key}: ndarray {v.dtype}{dims(v.shape)} = {_values_text(v, False)}\n")
        elif isinstance(v, Scalar):
            out.append(f"@{key}: {v.dtype} = {format_element(v.dtype, v.raw[()])}\n")
    for name, t in _sorted(pkg.tensors):
        line = f"{name}: {t.dtype}" + (dims(t.shape) if t.shape else "")
        if isinstance(t, Declaration):
            out.append(line + "\n")
        elif not t.shape:
            out.append(f"{line} = {format_element(t.dtype, t.raw[()])}\n")
        else:
            out.append(f"{line} = {_values_text(t, False)}\n")
    return "".join(out)
