"""The canonical writer (oinf.md, "Canonical writer"), byte for byte the C++ ModelWriter:
entries sorted by name in byte order, tables back to back each starting at the next multiple
of 8, then the data section: all metadata payloads in table order, then all tensor payloads,
each padded to 8."""
import os
import re
import struct
import tempfile

from . import dtypes
from .convert import to_package
from .errors import OinfError
from .values import Bitset, Declaration, NdArray, Scalar

MAGIC = b"OINF\0"
VERSION = 1
HEADER_PADDED = 72
HAS_DATA = 1
_NAME = re.compile(r"[A-Za-z0-9._-]+\Z")


def is_valid_name(s):
    """[A-Za-z0-9._-], at least one character."""
    return isinstance(s, str) and _NAME.match(s) is not None


def safe_name(s):
    """`s` with every character outside [A-Za-z0-9._-] replaced by '_' ("onnx::Conv_7" ->
    "onnx__Conv_7"), e.g. for names taken from another format. Distinct names may map to the
    same result: the writer then reports a duplicate only if both end up in one dict."""
    out = re.sub(r"[^A-Za-z0-9._-]", "_", str(s))
    if not out:
        raise OinfError("an empty name has no safe form")
    return out


def _pad8(b):
    return b + b"\0" * (-len(b) % 8)


def _string(s):
    data = s.encode("ascii")
    return _pad8(struct.pack("<I", len(data)) + data)


def _sorted_unique(table, what):
    for name in table:
        if not is_valid_name(name):
            raise OinfError(f"oinf writer: {what} name '{name}' must use only the characters "
                            f"[A-Za-z0-9._-], at least one")
    return sorted(table.items(), key=lambda kv: kv[0].encode())


def _metadata_payload(key, value):
    """(payload bytes without the final padding, value_nbytes, type tag)."""
    if isinstance(value, str):
        if not is_valid_name(value):
            raise OinfError(f"oinf writer: metadata '{key}': string value must use only the "
                            f"characters [A-Za-z0-9._-], at least one")
        payload = _string(value)
        return payload, len(payload), dtypes.TAG_STRING
    if isinstance(value, Bitset):
        payload = _pad8(struct.pack("<II", value.bit_count, len(value.data)) + value.data)
        return payload, len(payload), dtypes.BY_NAME["bitset"].tag
    if isinstance(value, Scalar):
        if value.shape != ():
            raise OinfError(f"oinf writer: metadata '{key}': a scalar must have rank 0")
        payload = value.payload()
        return payload, len(payload), dtypes.BY_NAME[value.dtype].tag
    if isinstance(value, NdArray):
        head = struct.pack("<II", dtypes.BY_NAME[value.dtype].tag, len(value.shape))
        head += b"".join(struct.pack("<Q", d) for d in value.shape)
        payload = head + value.payload()
        return payload, len(_pad8(payload)), dtypes.TAG_NDARRAY
    raise OinfError(f"oinf writer: metadata '{key}': {type(value).__name__} is not a value")


def serialize(pkg):
    """The canonical bytes of a normalized Package, as a list of pieces (tensor data is not
    copied: pieces may be memoryviews of the arrays)."""
    sizevars = _sorted_unique(pkg.sizevars, "sizevar")
    metadata = _sorted_unique(pkg.metadata, "metadata")
    tensors = _sorted_unique(pkg.tensors, "tensor")

    sv_table = _pad8(b"".join(_string(n) + struct.pack("<Q", v) for n, v in sizevars))
    meta = [(k, *_metadata_payload(k, v)) for k, v in metadata]
    tensor_data = [None if isinstance(t, Declaration) else t.payload_view() for _, t in tensors]

    # Table sizes do not depend on the payload offsets, so the data section start is known.
    off_sizevars = HEADER_PADDED
    off_metadata = off_sizevars + len(sv_table)
    meta_len = sum(len(_string(k)) + 24 for k, *_ in meta)
    off_tensors = off_metadata + meta_len + (-meta_len % 8)
    tensor_len = sum(len(_string(n)) + 12 + 8 * len(t.shape) + 16 for n, t in tensors)
    off_data = off_tensors + tensor_len + (-tensor_len % 8)

    cursor = off_data
    meta_table, data = b"", []
    for key, payload, nbytes, tag in meta:
        meta_table += _string(key) + struct.pack("<IIQQ", tag, 0, nbytes, cursor)
        data.append(_pad8(payload))
        cursor += len(data[-1])
    tensor_table = b""
    for (name, t), blob in zip(tensors, tensor_data):
        entry = _string(name) + struct.pack("<III", dtypes.BY_NAME[t.dtype].tag, len(t.shape),
                                            0 if blob is None else HAS_DATA)
        entry += b"".join(struct.pack("<Q", d) for d in t.shape)
        if blob is None:
            entry += struct.pack("<QQ", 0, 0)
        else:
            entry += struct.pack("<QQ", len(blob), cursor)
            data += [blob, b"\0" * (-len(blob) % 8)]
            cursor += len(blob) + len(data[-1])
        tensor_table += entry

    header = MAGIC + struct.pack("<IIIIIIQQQQQ", VERSION, 0, len(sizevars), len(metadata),
                                 len(tensors), 0, off_sizevars, off_metadata, off_tensors,
                                 off_data, cursor)
    pieces = [_pad8(header), sv_table, _pad8(meta_table), _pad8(tensor_table)] + data
    assert sum(len(p) for p in pieces) == cursor
    return pieces


def to_bytes(content=None, *, sizevars=None, metadata=None, tensors=None):
    """The canonical .oinf bytes of a Package, a dataclass instance, or the three dicts:
    sizevars name -> int, metadata key -> value, tensors name -> array/Tensor/Declaration."""
    return b"".join(serialize(to_package(content, sizevars=sizevars, metadata=metadata,
                                         tensors=tensors)))


def write(path, content=None, *, sizevars=None, metadata=None, tensors=None):
    """Writes the canonical .oinf file atomically (a temporary file, then a rename): on any
    error nothing is written and an existing file is left as it was."""
    pieces = serialize(to_package(content, sizevars=sizevars, metadata=metadata, tensors=tensors))
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(prefix=".oinf-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would create it, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            for piece in pieces:
                f.write(piece)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
