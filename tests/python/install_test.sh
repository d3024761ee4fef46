#!/usr/bin/env bash
# The README's install works offline: a venv over Debian's python3 (which sees python3-numpy),
# `pip install --no-build-isolation` of python/ (a copy, so the checkout stays clean), then the
# package imported from elsewhere writes, reads and verifies a model.
# Usage: install_test.sh SOURCE_DIR
set -euo pipefail
SRC=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp -r "$SRC/python" "$TMP/python"
rm -rf "$TMP/python/build" "$TMP/python"/*.egg-info
/usr/bin/python3 -m venv --system-site-packages "$TMP/.venv"
"$TMP/.venv/bin/pip" install --quiet --no-index --no-build-isolation "$TMP/python"
cd "$TMP"
rm -rf "$TMP/python"  # the installed copy must be what gets imported
.venv/bin/python - <<'PY'
import numpy as np
from openinfer import oinf
oinf.write("m.oinf", sizevars={"B": 4}, metadata={"mode": "clamp_up"},
           tensors={"a": np.array([1, 2, 3, 4], np.float32)})
assert oinf.read("m.oinf")["a"].tolist() == [1.0, 2.0, 3.0, 4.0]
assert "site-packages" in oinf.__file__, oinf.__file__
PY
test "$(.venv/bin/python -m openinfer.oinf verify m.oinf)" = ok
cmp m.oinf "$SRC/tests/oinf/fixtures/example.oinf"
echo "install ok"
