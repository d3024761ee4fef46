#!/usr/bin/env node
// Times one ONNX model in onnxruntime-node: one untimed run, then RUNS runs of session.run on
// the same inputs, each timed alone (process.hrtime, wall). Prints JSON: the median and fastest
// run in milliseconds, the process's CPU milliseconds per run, the threads and ORT's version,
// and with --out the first output's values (raw f32) for a check.
//
//   node bench/ort_time.js --ort-dir DIR --model M.onnx --input NAME=FILE.f32:D0xD1x... \
//        [--runs N] [--threads T] [--out FILE]
//
// DIR is an `npm install --prefix DIR onnxruntime-node` directory (examples/silero_vad/
// fetch_and_export.sh --with-ort makes one). Graph optimizations on ("all"), sequential.
'use strict';

const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const args = { runs: 10, threads: 1, inputs: [] };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--ort-dir') args.ortDir = value;
    else if (key === '--model') args.model = value;
    else if (key === '--runs') args.runs = Number(value);
    else if (key === '--threads') args.threads = Number(value);
    else if (key === '--out') args.out = value;
    else if (key === '--input') {
      const m = /^([^=]+)=(.+):([0-9x]+)$/.exec(value);
      if (!m) throw new Error(`--input ${value}: expected NAME=FILE.f32:D0xD1x...`);
      args.inputs.push({ name: m[1], file: m[2], dims: m[3].split('x').map(Number) });
    } else throw new Error(`unknown option ${key}`);
  }
  if (!args.ortDir || !args.model || args.inputs.length === 0)
    throw new Error('needs --ort-dir, --model and at least one --input');
  return args;
}

async function main() {
  const args = parseArgs(process.argv);
  const ort = require(path.resolve(args.ortDir, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(args.model, {
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  });
  const feeds = {};
  for (const inp of args.inputs) {
    const buf = fs.readFileSync(inp.file);
    const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    feeds[inp.name] = new ort.Tensor('float32', Float32Array.from(data), inp.dims);
  }
  const first = await session.run(feeds);
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < args.runs; r += 1) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  if (args.out) {
    const out = first[session.outputNames[0]].data;
    fs.writeFileSync(args.out, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  }
  process.stdout.write(`${JSON.stringify({
    onnxruntime: ort.env.versions.common,
    threads: args.threads,
    runs: args.runs,
    ms_median: times[Math.floor(times.length / 2)],
    ms_min: times[0],
    cpu_ms_per_run: (cpu.user + cpu.system) / 1000 / args.runs,
  })}\n`);
}

main().catch((err) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
