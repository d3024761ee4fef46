"""Read and write OpenInfer model packages (.oinf, see oinf.md) with numpy.

    from openinfer import oinf
    oinf.write("model.oinf", sizevars={"B": 4}, metadata={"mode": "clamp_up"},
               tensors={"a": np.array([1, 2, 3, 4], np.float32)})
    pkg = oinf.read("model.oinf")      # Package: .sizevars, .metadata, .tensors
    pkg["a"]                           # array([1., 2., 3., 4.], dtype=float32)

`python -m openinfer.oinf verify|inspect FILE` checks or shows a file."""
from .convert import from_dataclass, to_package
from .dtypes import ALL as DTYPES
from .errors import OinfError
from .reader import parse, read
from .views import dump_text, inspect_text
from .values import Bitset, Declaration, NdArray, Package, Scalar, Tensor
from .writer import is_valid_name, safe_name, to_bytes, write

__all__ = ["Bitset", "DTYPES", "Declaration", "NdArray", "OinfError", "Package", "Scalar",
           "Tensor", "dump_text", "from_dataclass", "inspect_text", "is_valid_name", "parse",
           "read", "safe_name", "to_bytes", "to_package", "write"]
