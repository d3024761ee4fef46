"""What a package holds: tensors (with data or declared), metadata values (scalars, strings,
bitsets, ndarrays) and the Package itself.

A Tensor keeps its elements as `raw`: one numpy element per tensor element holding the stored
bits (uint16 for f16/bf16, uint8 for f8 and bool, int8/uint8 per element for packed types,
the natural numpy type otherwise). `numpy()` decodes: f8/bf16 to float32, f16 to float16,
bool to bool, packed types to int8 (signed, t1, t2) or uint8 (unsigned) values."""
from dataclasses import dataclass, field

import numpy as np

from . import dtypes, floats, packing
from .errors import OinfError


def _numeric_kind(arr):
    return arr.dtype.kind  # b bool, i int, u uint, f float, others rejected


def _check_range(arr, dt, what):
    if arr.size == 0:
        return
    lo, hi = int(arr.min()), int(arr.max())
    if dt.name == "t1":
        bad = arr[(arr != 1) & (arr != -1)]
        if bad.size:
            raise OinfError(f"{what}: value {int(bad.flat[0])} does not fit t1 (-1 or 1)")
        return
    if lo < dt.lo or hi > dt.hi:
        value = lo if lo < dt.lo else hi
        raise OinfError(f"{what}: value {value} does not fit {dt.name} ({dt.lo}..{dt.hi})")


def to_raw(values, dtype, what="tensor values"):
    """The `raw` array of `values` stored as `dtype` (rounding floats, checking int ranges)."""
    dt = dtypes.get(dtype)
    arr = np.asarray(values)
    kind = _numeric_kind(arr)
    if kind not in "biuf":
        raise OinfError(f"{what}: cannot store numpy {arr.dtype} values as {dt.name}")
    if dt.kind == "float":
        if kind == "b":
            raise OinfError(f"{what}: bool values given for {dt.name}; convert them first")
        if dt.name == "f32":
            with np.errstate(over="ignore"):  # beyond the largest f32: inf
                return arr.astype("<f4", copy=False)
        if dt.name == "f64":
            return arr.astype("<f8", copy=False)
        if dt.name == "f16" and arr.dtype == np.float16:
            return arr.astype("<f2").view("<u2")
        if arr.dtype == np.float16:
            arr = arr.astype(np.float32)  # exact
        return floats.encode(arr, dt.name).reshape(arr.shape)
    if kind == "f":
        raise OinfError(f"{what}: float values given for {dt.name}; round and convert them "
                        f"to integers first (e.g. np.rint(x).astype(np.int64))")
    _check_range(arr.astype(np.int64) if kind == "b" else arr, dt, what)
    return arr.astype(dtypes.raw_numpy(dt), copy=False)


class Tensor:
    """A tensor with data: `Tensor(values, dtype=None)`. Without dtype it follows numpy's
    (int8..uint64, float16/32/64, bool). With dtype, floats are rounded to nearest even
    (f8/bf16/f16) and integers range-checked (packed types take their unpacked values)."""

    def __init__(self, values, dtype=None, *, what="tensor values"):
        arr = np.asarray(values)
        dt = dtypes.from_numpy(arr.dtype) if dtype is None else dtypes.get(dtype)
        self.dtype = dt.name
        self.raw = to_raw(arr, dt, what)
        self.shape = tuple(int(d) for d in self.raw.shape)

    @classmethod
    def from_raw(cls, raw, dtype, shape=None):
        """A tensor of already-stored elements (see the module doc: bits for f8/bf16/f16,
        float32/float64 values for f32/f64), taken as they are; packed codes are range-checked.
        """
        dt = dtypes.get(dtype)
        t = cls.__new__(cls)
        arr = np.asarray(raw)
        want = dtypes.raw_numpy(dt)
        if dt.packed:
            _check_range(arr.astype(np.int64), dt, "raw values")
        else:
            # Same-size integers keep their bits under astype; floats must stay floats.
            kinds = "f" if want.kind == "f" else "iub"
            if arr.dtype.kind not in kinds or arr.dtype.itemsize != want.itemsize:
                raise OinfError(f"raw values of {dt.name} must be {want}, got {arr.dtype}")
        t.dtype = dt.name
        t.raw = arr.astype(want, copy=False)
        t.shape = tuple(int(d) for d in (arr.shape if shape is None else shape))
        if shape is not None:
            t.raw = t.raw.reshape(t.shape)
        return t

    @property
    def numel(self):
        return dtypes.numel_of(self.shape)

    @property
    def nbytes(self):
        return dtypes.storage_bytes(self.dtype, self.numel)

    def numpy(self, raw=False):
        """The values: f8/bf16 as float32, f16 as float16, bool as bool, packed as ints.
        raw=True gives the stored bits instead (`raw`: uint16 for f16/bf16, uint8 for f8)."""
        if raw:
            return self.raw
        if self.dtype in ("f8", "bf16"):
            return floats.decode(self.raw, self.dtype).reshape(self.shape)
        if self.dtype == "f16":
            return self.raw.view("<f2")
        if self.dtype == "bool":
            return self.raw != 0
        return self.raw

    def payload(self):
        """The element bytes as stored in the file (exact size, no padding)."""
        return bytes(self.payload_view())

    def payload_view(self):
        """The same bytes without a copy where possible (a memoryview of the array)."""
        if dtypes.get(self.dtype).packed:
            return packing.pack(self.raw, self.dtype)
        return memoryview(np.ascontiguousarray(self.raw).reshape(-1)).cast("B")

    def __eq__(self, other):
        return (isinstance(other, Tensor) and type(self) is type(other)
                and self.dtype == other.dtype and self.shape == other.shape
                and self.payload() == other.payload())

    def __repr__(self):
        return f"{type(self).__name__}({self.numpy()!r}, dtype='{self.dtype}')"


class Scalar(Tensor):
    """A metadata scalar of any dtype but bitset: Scalar(0.5, 'f32'), Scalar(-3, 'i4')."""

    def __init__(self, value, dtype=None):
        arr = np.asarray(value)
        if arr.ndim != 0:
            raise OinfError(f"a metadata scalar must have rank 0, got shape {arr.shape}")
        super().__init__(arr, dtype, what="metadata scalar")
        if self.dtype == "bitset":
            raise OinfError("a metadata scalar cannot have dtype bitset (use Bitset)")

    @property
    def value(self):
        return self.numpy()[()]


class NdArray(Tensor):
    """A metadata ndarray of any dtype but bitset: NdArray([[1, 2], [3, 4]], 'i16')."""

    def __init__(self, values, dtype=None):
        super().__init__(values, dtype, what="metadata ndarray")
        if self.dtype == "bitset":
            raise OinfError("a metadata ndarray cannot hold bitset elements")


@dataclass(frozen=True)
class Declaration:
    """A tensor without data: its dtype and dims only."""
    dtype: str
    shape: tuple

    def __post_init__(self):
        object.__setattr__(self, "dtype", dtypes.get(self.dtype).name)
        shape = tuple(int(d) for d in self.shape)
        if any(d < 0 or d >= 1 << 64 for d in shape):
            raise OinfError(f"declaration dims {list(shape)} must be in 0..2^64-1")
        if dtypes.storage_bytes(self.dtype, dtypes.numel_of(shape)) >= 1 << 64:
            raise OinfError(f"declaration dims {list(shape)} overflow 64 bits")
        object.__setattr__(self, "shape", shape)


class Bitset:
    """A metadata bitset: Bitset([1, 0, 1, 1]) or Bitset.from_bytes(bit_count, data), bits
    LSB first. `bits` gives a bool array of bit_count values."""

    def __init__(self, bits=()):
        b = np.asarray(bits).reshape(-1)
        if b.size and (b.dtype.kind not in "biu" or not np.isin(b, (0, 1)).all()):
            raise OinfError("bitset bits must be 0/1 or bool values")
        self.bit_count = int(b.size)
        if self.bit_count >= 1 << 32:
            raise OinfError(f"bitset of {self.bit_count} bits: at most 2^32 - 1")
        self.data = np.packbits(b.astype(np.uint8), bitorder="little").tobytes()

    @classmethod
    def from_bytes(cls, bit_count, data):
        data = bytes(data)
        needed = (bit_count + 7) // 8
        if not 0 <= bit_count < 1 << 32 or len(data) != needed:
            raise OinfError(f"bitset of {bit_count} bits needs {needed} bytes, got {len(data)}")
        b = cls.__new__(cls)
        b.bit_count, b.data = int(bit_count), data
        return b

    @property
    def bits(self):
        return np.unpackbits(np.frombuffer(self.data, np.uint8), count=self.bit_count,
                             bitorder="little").astype(bool)

    def __eq__(self, other):
        return (isinstance(other, Bitset) and self.bit_count == other.bit_count
                and self.data == other.data)

    def __repr__(self):
        return "Bitset(0b" + "".join("1" if b else "0" for b in self.bits) + ")"


@dataclass
class Package:
    """The content of one .oinf file. sizevars: name -> int (u64); metadata: key -> str,
    Scalar, NdArray or Bitset; tensors: name -> Tensor or Declaration. Dicts may hold
    plain Python/numpy values too (see `openinfer.oinf.write`); reading gives the classes."""
    sizevars: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    tensors: dict = field(default_factory=dict)

    def arrays(self):
        """name -> decoded numpy array of every tensor with data."""
        return {k: t.numpy() for k, t in self.tensors.items() if isinstance(t, Tensor)}

    def __getitem__(self, name):
        t = self.tensors[name]
        if not isinstance(t, Tensor):
            raise KeyError(f"tensor '{name}' is a declaration without data")
        return t.numpy()
