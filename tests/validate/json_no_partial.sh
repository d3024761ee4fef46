#!/bin/sh
# json_no_partial.sh OPENINFER BAD_GRAPH OUT: `graph json` on a graph that does not parse must
# exit 1 and leave no OUT file (nor a temporary one) behind.
rm -f "$3"
"$1" graph json "$2" -o "$3"; rc=$?
if [ "$rc" != 1 ]; then echo "FAIL: exit code $rc, expected 1"; exit 1; fi
if ls "$3"* >/dev/null 2>&1; then echo "FAIL: $3 was written"; exit 1; fi
echo "no file written"
