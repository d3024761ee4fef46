#!/usr/bin/env bash
# `vad` on bad inputs: each gets exit 1 or 2 and a first line "error: ..." naming the problem,
# before any model is needed (so this test runs offline).
#   bad_inputs_test.sh VAD_BINARY
set -euo pipefail
vad="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY'
import struct, sys, wave
tmp = sys.argv[1]
def pcm(name, rate, channels, frames=1600):
    with wave.open(f"{tmp}/{name}", "wb") as w:
        w.setnchannels(channels); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes(b"\0\0" * frames * channels)
pcm("stereo.wav", 16000, 2)
pcm("rate8k.wav", 8000, 1)
pcm("ok.wav", 16000, 1)
data = open(f"{tmp}/ok.wav", "rb").read()
open(f"{tmp}/truncated.wav", "wb").write(data[:200])
open(f"{tmp}/text.wav", "w").write("not audio\n")
# 8-bit PCM: a valid WAV in a format the tool does not read.
with wave.open(f"{tmp}/u8.wav", "wb") as w:
    w.setnchannels(1); w.setsampwidth(1); w.setframerate(16000); w.writeframes(b"\x80" * 100)
PY
fails=0
expect() {  # expect EXIT_CODE MESSAGE_PART ARGS...
  local code="$1" part="$2"
  shift 2
  local got=0
  "$vad" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  if [[ $got != "$code" ]] || ! head -1 "$tmp/err" | grep -q -- "^error: .*$part"; then
    echo "FAIL: vad $* -> exit $got, stderr: $(head -1 "$tmp/err") (want exit $code, '$part')"
    fails=$((fails + 1))
  else
    echo "ok: vad $* -> $(head -1 "$tmp/err")"
  fi
}
expect 1 "2 channels" "$tmp/stereo.wav"
expect 1 "8000 Hz" "$tmp/rate8k.wav"
expect 1 "truncated" "$tmp/truncated.wav"
expect 1 "not a WAV file" "$tmp/text.wav"
expect 1 "unsupported sample format" "$tmp/u8.wav"
expect 1 "cannot open" "$tmp/missing.wav"
expect 1 "cannot open the file" --model "$tmp/missing.oinf" "$tmp/ok.wav"
expect 2 "no input file"
expect 2 "unknown option --bogus" --bogus "$tmp/ok.wav"
expect 2 "threshold" --threshold 1.5 "$tmp/ok.wav"
expect 2 "needs a value" "$tmp/ok.wav" --model
[[ $fails == 0 ]]
