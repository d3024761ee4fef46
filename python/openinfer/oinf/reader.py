"""Validation and decoding of an OINF file (oinf.md, "Validation"), a port of the C++ reader
(core/src/oinf/reader.cpp) with the same checks, in the same order, and the same messages:
"ORIGIN: ENTRY: PROBLEM". It decides the points oinf.md leaves open the same way: header flags,
reserved and value_flags must be 0; tensor flags may carry only HAS_DATA; gaps and padding
bytes are never read; element values are not checked."""
import mmap
import os
import re

import numpy as np

from . import dtypes, packing
from .errors import OinfError
from .values import Bitset, Declaration, NdArray, Package, Scalar, Tensor

HEADER_PADDED = 72
MIN_SIZEVAR, MIN_METADATA, MIN_TENSOR = 16, 32, 36
_U64 = 1 << 64
_ALLOWED = re.compile(rb"[A-Za-z0-9._-]")
_ALLOWED_ALL = re.compile(rb"[A-Za-z0-9._-]*")


def _range(begin, end):
    return f"[{begin}, {end})"


def _dims_text(dims):
    parts = [str(d) for d in dims[:8]]
    if len(dims) > 8:
        parts.append(f"... ({len(dims)} dims)")
    return "[" + ", ".join(parts) + "]"


def _tag_text(tag):
    if tag in dtypes.BY_TAG:
        return dtypes.BY_TAG[tag].name
    if tag == dtypes.TAG_STRING:
        return "string"
    if tag == dtypes.TAG_NDARRAY:
        return "ndarray"
    return f"tag {tag}"


def _bad_char(raw):
    """Describes the first disallowed byte of `raw`, or None."""
    if _ALLOWED_ALL.fullmatch(raw):
        return None
    for i, c in enumerate(raw):
        if _ALLOWED.match(bytes([c])):
            continue
        what = f"byte 0x{c:02x}"
        if 0x20 <= c < 0x7F:
            what += f" '{chr(c)}'"
        return f"{what} at position {i} (allowed: [A-Za-z0-9._-])"
    return None


def _storage(dt, dims):
    """(numel, byte size) as the C++ checked math: (None, None) when the product of the
    nonzero dims overflows 64 bits (even with a zero dim), byte size None past 2^64."""
    nonzero = 1
    for d in dims:  # stops multiplying once past 2^64: a corrupt file may hold many dims
        if d and nonzero < _U64:
            nonzero *= d
    if nonzero >= _U64:
        return None, None
    numel = 0 if 0 in dims else nonzero
    size = (numel * dt.bits + 7) // 8
    return numel, (size if size < _U64 else None)


class _Parser:
    def __init__(self, origin, buf):
        self.origin = origin
        self.buf = buf
        self.size = len(buf)
        self.payloads = []

    def fail(self, where, problem):
        raise OinfError(f"{self.origin}: {where}: {problem}")

    def u32(self, at):
        return int.from_bytes(self.buf[at:at + 4], "little")

    def u64(self, at):
        return int.from_bytes(self.buf[at:at + 8], "little")

    # ---- header
    def header(self):
        size = self.size
        if size < HEADER_PADDED:
            self.fail("header", f"file is {size} bytes, shorter than the {HEADER_PADDED}-byte "
                                f"header")
        if bytes(self.buf[0:5]) != b"OINF\0":
            self.fail("header", 'bad magic (expected "OINF\\0"): not an OINF file')
        version = self.u32(5)
        if version != 1:
            self.fail("header", f"version {version} is not supported (expected 1)")
        if (flags := self.u32(9)) != 0:
            self.fail("header", f"flags {flags} must be 0")
        if (reserved := self.u32(25)) != 0:
            self.fail("header", f"reserved field {reserved} must be 0")
        file_size = self.u64(61)
        if file_size != size:
            self.fail("header", f"file_size {file_size} does not match the file length {size}")
        self.n_sizevars, self.n_metadata, self.n_tensors = self.u32(13), self.u32(17), self.u32(21)
        self.offsets = [("offset_sizevars", self.u64(29)), ("offset_metadata", self.u64(37)),
                        ("offset_tensors", self.u64(45)), ("offset_data", self.u64(53))]
        previous, previous_name = HEADER_PADDED, None
        for name, offset in self.offsets:
            if offset % 8:
                self.fail("header", f"{name} {offset} is not a multiple of 8")
            if offset > size:
                self.fail("header", f"{name} {offset} is past the end of the file (file_size "
                                    f"{size})")
            if offset < previous:
                if previous_name is None:
                    self.fail("header", f"{name} {offset} lies inside the {HEADER_PADDED}-byte "
                                        f"header")
                self.fail("header", f"{name} {offset} is before {previous_name} {previous} "
                                    f"(table offsets must not decrease)")
            previous, previous_name = offset, name
        (self.off_sizevars, self.off_metadata, self.off_tensors,
         self.off_data) = (o for _, o in self.offsets)

    def check_count(self, count_name, count, table, min_entry):
        name, begin, end = table
        room = end - begin
        if count > room // min_entry:
            self.fail("header", f"{count_name} {count} cannot fit in the {name} table "
                                f"{_range(begin, end)} ({room} bytes; an entry takes at least "
                                f"{min_entry})")

    def unique(self, names, table):
        order = sorted(range(len(names)), key=lambda i: names[i].encode())
        for a, b in zip(order, order[1:]):
            if names[a] == names[b]:
                self.fail(f"{table} '{names[b]}' (entry {b})",
                          f"duplicate name (entry {a} has the same name)")

    # ---- tables
    def sizevars(self):
        table = ("sizevars", self.off_sizevars, self.off_metadata)
        self.check_count("n_sizevars", self.n_sizevars, table, MIN_SIZEVAR)
        cur = _Cursor(self, table)
        out = []
        for i in range(self.n_sizevars):
            cur.label = f"sizevar entry {i}"
            name = cur.string("name")
            cur.label = f"sizevar '{name}' (entry {i})"
            out.append((name, cur.u64("value")))
        self.unique([n for n, _ in out], "sizevar")
        return out

    def metadata(self):
        table = ("metadata", self.off_metadata, self.off_tensors)
        self.check_count("n_metadata", self.n_metadata, table, MIN_METADATA)
        cur = _Cursor(self, table)
        out = []
        for i in range(self.n_metadata):
            cur.label = f"metadata entry {i}"
            key = cur.string("key")
            cur.label = label = f"metadata '{key}' (entry {i})"
            vtype, vflags = cur.u32("value_type"), cur.u32("value_flags")
            nbytes, offset = cur.u64("value_nbytes"), cur.u64("value_offset")
            if vtype == 0 or vtype > 25:
                self.fail(label, f"unknown value type {vtype}")
            if vflags != 0:
                self.fail(label, f"value_flags {vflags} must be 0")
            self.check_payload(label, offset, nbytes)
            out.append((key, self.meta_value(label, vtype, offset, nbytes)))
        self.unique([k for k, _ in out], "metadata")
        return out

    def tensors(self):
        table = ("tensor", self.off_tensors, self.off_data)
        self.check_count("n_tensors", self.n_tensors, table, MIN_TENSOR)
        cur = _Cursor(self, table)
        out = []
        for i in range(self.n_tensors):
            cur.label = f"tensor entry {i}"
            name = cur.string("name")
            cur.label = label = f"tensor '{name}' (entry {i})"
            tag, ndim, flags = cur.u32("dtype"), cur.u32("ndim"), cur.u32("flags")
            dt = dtypes.BY_TAG.get(tag)
            if dt is None:
                if tag in (dtypes.TAG_STRING, dtypes.TAG_NDARRAY):
                    self.fail(label, f"dtype {_tag_text(tag)} (tag {tag}) is only allowed in "
                                     f"metadata")
                self.fail(label, f"unknown dtype tag {tag}")
            if flags & ~1:
                self.fail(label, f"flags {flags} has unknown bits (only bit 0, HAS_DATA, is "
                                 f"defined)")
            if ndim * 8 > table[2] - table[1]:
                self.fail(label, f"ndim {ndim} runs past the end of the tensor table "
                                 f"{_range(table[1], table[2])}")
            dims = [cur.u64("dims") for _ in range(ndim)]
            data_nbytes, data_offset = cur.u64("data_nbytes"), cur.u64("data_offset")
            numel, expected = _storage(dt, dims)
            if numel is None:
                self.fail(label, f"dims {_dims_text(dims)} overflow 64 bits")
            if expected is None:
                self.fail(label, f"dtype {_tag_text(tag)} and dims {_dims_text(dims)} need "
                                 f"more than 2^64 bytes")
            if not flags & 1:
                if data_nbytes or data_offset:
                    self.fail(label, f"a declaration without data (HAS_DATA = 0) has data_nbytes "
                                     f"{data_nbytes} and data_offset {data_offset} (both must "
                                     f"be 0)")
                out.append((name, Declaration(dt.name, tuple(dims))))
                continue
            if data_nbytes != expected:
                self.fail(label, f"data_nbytes {data_nbytes} does not match dtype "
                                 f"{_tag_text(tag)} and dims {_dims_text(dims)} ({expected} "
                                 f"bytes)")
            self.check_payload(label, data_offset, data_nbytes)
            out.append((name, ("tensor", dt, tuple(dims), data_offset, data_nbytes)))
        self.unique([n for n, _ in out], "tensor")
        return out

    # ---- payloads
    def check_payload(self, label, offset, nbytes):
        if offset % 8:
            self.fail(label, f"payload offset {offset} is not a multiple of 8")
        end = offset + nbytes
        if end >= _U64:
            self.fail(label, f"payload at offset {offset} with {nbytes} bytes overflows 64 bits")
        if offset < self.off_data or end > self.size:
            self.fail(label, f"payload {_range(offset, end)} is outside the data section "
                             f"{_range(self.off_data, self.size)}")
        if nbytes > 0:
            self.payloads.append((offset, end, label))

    def meta_value(self, label, vtype, offset, nbytes):
        """The decoded value (str, Bitset, a lazy scalar/ndarray description)."""
        tag = _tag_text(vtype)

        def short(header):
            if nbytes < header:
                self.fail(label, f"{tag} payload of {nbytes} bytes is shorter than its "
                                 f"{header}-byte header")

        def padded_must_be(what, unpadded):
            padded = None if unpadded is None else (unpadded + 7) // 8 * 8
            if padded is not None and padded >= _U64:
                padded = None
            if padded != nbytes:
                more = (f" ({padded} bytes with padding)" if padded is not None
                        else " (more than 2^64 bytes)")
                self.fail(label, f"value_nbytes {nbytes} does not match the {what}{more}")

        if vtype == dtypes.TAG_STRING:
            short(4)
            length = self.u32(offset)
            if length == 0:
                self.fail(label, "string value is empty")
            padded_must_be(f"string length {length}", 4 + length)
            raw = bytes(self.buf[offset + 4:offset + 4 + length])
            if (bad := _bad_char(raw)) is not None:
                self.fail(label, f"string value contains {bad}")
            return raw.decode("ascii")
        if vtype == dtypes.TAG_NDARRAY:
            short(8)
            elem, ndim = self.u32(offset), self.u32(offset + 4)
            dt = dtypes.BY_TAG.get(elem)
            if dt is None or dt.name == "bitset":
                self.fail(label, f"ndarray element type {_tag_text(elem)} is not a numeric, "
                                 f"bool or packed dtype")
            header = 8 + ndim * 8
            if header > nbytes:
                self.fail(label, f"ndarray ndim {ndim} does not fit in its {nbytes}-byte "
                                 f"payload")
            dims = [self.u64(offset + 8 + 8 * d) for d in range(ndim)]
            numel, data = _storage(dt, dims)
            if numel is None:
                self.fail(label, f"ndarray dims {_dims_text(dims)} overflow 64 bits")
            padded_must_be(f"ndarray {_tag_text(elem)}{_dims_text(dims)}",
                           None if data is None or header + data >= _U64 else header + data)
            return ("ndarray", dt, tuple(dims), offset + header, data)
        if vtype == dtypes.BY_NAME["bitset"].tag:
            short(8)
            bit_count, byte_count = self.u32(offset), self.u32(offset + 4)
            needed = (bit_count + 7) // 8
            if byte_count != needed:
                self.fail(label, f"bitset byte_count {byte_count} does not match bit_count "
                                 f"{bit_count} ({needed} bytes)")
            padded_must_be(f"bitset of {bit_count} bits", 8 + byte_count)
            return Bitset.from_bytes(bit_count, self.buf[offset + 8:offset + 8 + byte_count])
        dt = dtypes.BY_TAG[vtype]
        size = 1 if dt.packed else dt.bits // 8
        if nbytes != size:
            self.fail(label, f"value_nbytes {nbytes} does not match the {size}-byte {tag} "
                             f"scalar")
        return ("scalar", dt, (), offset, size)

    def check_overlaps(self):
        reach = None
        for p in sorted(self.payloads, key=lambda p: (p[0], p[1])):
            if reach is not None and p[0] < reach[1]:
                self.fail(p[2], f"payload {_range(p[0], p[1])} overlaps the payload "
                                f"{_range(reach[0], reach[1])} of {reach[2]}")
            if reach is None or p[1] > reach[1]:
                reach = p


class _Cursor:
    """Reads fields of consecutive entries inside one table, never past its end."""

    def __init__(self, parser, table):
        self.p, self.table, self.pos, self.label = parser, table, table[1], ""

    def need(self, n, what):
        name, begin, end = self.table
        if end - self.pos < n:
            self.p.fail(self.label, f"{what} at offset {self.pos} runs past the end of the "
                                    f"{name} table {_range(begin, end)}")

    def u32(self, field):
        self.need(4, field)
        self.pos += 4
        return self.p.u32(self.pos - 4)

    def u64(self, field):
        self.need(8, field)
        self.pos += 8
        return self.p.u64(self.pos - 8)

    def string(self, field):
        length = self.u32(f"{field} length")
        if length == 0:
            self.p.fail(self.label, f"{field} is empty")
        rest = (4 + length + 7) // 8 * 8 - 4
        self.need(rest, f"{field} length {length}")
        raw = bytes(self.p.buf[self.pos:self.pos + length])
        if (bad := _bad_char(raw)) is not None:
            self.p.fail(self.label, f"{field} contains {bad}")
        self.pos += rest
        return raw.decode("ascii")


def _element_tensor(cls, buf, dt, dims, offset, nbytes):
    """A Tensor (or Scalar/NdArray) over the payload; non-packed data is a read-only view."""
    numel = dtypes.numel_of(dims)
    if numel == 0:
        raw = np.zeros(0, dtypes.raw_numpy(dt))
    elif dt.packed:
        raw = packing.unpack(bytes(buf[offset:offset + nbytes]), dt, numel)
    else:
        raw = np.frombuffer(buf, dtypes.raw_numpy(dt), count=numel, offset=offset)
    return cls.from_raw(raw.reshape(dims), dt.name)


def parse(buf, origin="<memory>"):
    """A Package from the bytes of a file (bytes, bytearray, mmap), after every check."""
    p = _Parser(origin, buf)
    p.header()
    sizevars = p.sizevars()
    metadata = p.metadata()
    tensors = p.tensors()
    p.check_overlaps()
    pkg = Package()
    pkg.sizevars = dict(sizevars)
    for key, v in metadata:
        if isinstance(v, tuple):
            kind, dt, dims, offset, nbytes = v
            v = _element_tensor(Scalar if kind == "scalar" else NdArray, buf, dt, dims, offset,
                                nbytes)
        pkg.metadata[key] = v
    for name, t in tensors:
        if isinstance(t, tuple):
            _, dt, dims, offset, nbytes = t
            t = _element_tensor(Tensor, buf, dt, dims, offset, nbytes)
        pkg.tensors[name] = t
    return pkg


def read(path):
    """A Package from an .oinf file, validated like the C++ reader. Tensor data is memory-
    mapped (read-only arrays, paged in on first use); packed types are unpacked at once.
    Raises OinfError "PATH: ENTRY: PROBLEM" for a bad or unreadable file."""
    origin = os.fspath(path)
    try:
        if os.path.exists(origin) and not os.path.isfile(origin):
            raise OinfError(f"{origin}: not a regular file")
        with open(origin, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    except OSError as e:
        raise OinfError(f"{origin}: cannot open the file: {e.strerror}") from None
    return parse(buf, origin)
