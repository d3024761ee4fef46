"""Turns what users write (a Package, a dataclass, dicts of numpy arrays and Python values)
into a Package of the value classes, with a clear error for anything that has no OINF form."""
import dataclasses

import numpy as np

from .errors import OinfError
from .values import Bitset, Declaration, NdArray, Package, Scalar, Tensor

_ROLES = ("sizevar", "metadata", "tensor")


def sizevar_value(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise OinfError(f"sizevar '{name}': value {value!r} is not an integer")
    if not 0 <= int(value) < 1 << 64:
        raise OinfError(f"sizevar '{name}': value {int(value)} is outside 0..2^64-1")
    return int(value)


def metadata_value(key, value):
    """str, Bitset, Scalar, NdArray; Python bool/int/float and numpy scalars become scalars
    (bool, i64 or u64 when it does not fit i64, f64, the numpy type), numpy arrays and other
    Tensors become ndarrays."""
    if isinstance(value, (str, Bitset, Scalar, NdArray)):
        return value
    try:
        if isinstance(value, Tensor):
            if value.dtype == "bitset":
                raise OinfError("a metadata ndarray cannot hold bitset elements")
            return NdArray.from_raw(value.raw, value.dtype, value.shape)
        if isinstance(value, (bool, np.bool_)):
            return Scalar(bool(value), "bool")
        if isinstance(value, int):
            return Scalar(value, "i64" if -(1 << 63) <= value < 1 << 63 else "u64")
        if isinstance(value, float):
            return Scalar(value, "f64")
        if isinstance(value, np.generic):
            return Scalar(value)
        if isinstance(value, np.ndarray):
            return NdArray(value)
    except (OinfError, TypeError, OverflowError) as e:
        raise OinfError(f"metadata '{key}': {e}") from None
    raise OinfError(f"metadata '{key}': {type(value).__name__} has no OINF form (use str, "
                    f"Scalar, NdArray, Bitset, a number or a numpy array)")


def tensor_value(name, value):
    """Tensor or Declaration as they are; a numpy array becomes a Tensor of its dtype."""
    if isinstance(value, (Tensor, Declaration)) and not isinstance(value, (Scalar, NdArray)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        try:
            return Tensor(value)
        except (OinfError, TypeError) as e:
            raise OinfError(f"tensor '{name}': {e}") from None
    raise OinfError(f"tensor '{name}': {type(value).__name__} is not a numpy array, Tensor or "
                    f"Declaration")


def _role_of(value):
    if isinstance(value, (Tensor, Declaration, np.ndarray)) and not isinstance(
            value, (Scalar, NdArray)):
        return "tensor"
    if isinstance(value, int) and not isinstance(value, bool):
        return "sizevar"
    return "metadata"


def from_dataclass(obj):
    """A Package from a dataclass instance. Each field is an entry named after the field
    (or `field(metadata={"oinf_name": "conv1.weight"})`): plain ints are sizevars, numpy
    arrays, Tensors and Declarations are tensors, anything else is metadata; None is skipped.
    `field(metadata={"oinf": "metadata"})` (or "sizevar", "tensor") sets the role."""
    pkg = Package()
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None:
            continue
        name = f.metadata.get("oinf_name", f.name)
        role = f.metadata.get("oinf", _role_of(value))
        if role not in _ROLES:
            raise OinfError(f"field '{f.name}': oinf role '{role}' is not one of {_ROLES}")
        table = {"sizevar": pkg.sizevars, "metadata": pkg.metadata, "tensor": pkg.tensors}[role]
        if name in table:
            raise OinfError(f"field '{f.name}': duplicate {role} name '{name}'")
        table[name] = value
    return pkg


def to_package(content=None, *, sizevars=None, metadata=None, tensors=None):
    """A normalized Package from a Package, a dataclass instance, or the three dicts."""
    if content is not None:
        if sizevars or metadata or tensors:
            raise OinfError("give either a package/dataclass or sizevars/metadata/tensors")
        if not isinstance(content, Package):
            if not dataclasses.is_dataclass(content) or isinstance(content, type):
                raise OinfError(f"{type(content).__name__} is not a Package or a dataclass "
                                f"instance")
            content = from_dataclass(content)
        sizevars, metadata, tensors = content.sizevars, content.metadata, content.tensors
    for what, table in (("sizevar", sizevars), ("metadata", metadata), ("tensor", tensors)):
        for k in table or {}:
            if not isinstance(k, str):
                raise OinfError(f"{what} name {k!r} is not a str")
    return Package(
        {k: sizevar_value(k, v) for k, v in (sizevars or {}).items()},
        {k: metadata_value(k, v) for k, v in (metadata or {}).items()},
        {k: tensor_value(k, v) for k, v in (tensors or {}).items()})
