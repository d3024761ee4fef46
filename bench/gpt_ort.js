#!/usr/bin/env node
// Greedy decoding of the GPT-2-style decoder in onnxruntime-node with past key/values (the
// model of bench/gpt_onnx_export.py): the prompt one position at a time (P = 0, 1, ...), then
// STEPS - 1 tokens, each run feeding the previous run's present K/V as past K/V. The same
// schedule as examples/gpt/gpt.oi and bench/gpt_torch_peer.py. Prints JSON: the prompt's ms,
// decode tokens/s (wall), the process's CPU ms per decoded token and the STEPS tokens picked.
//
//   node bench/gpt_ort.js --ort-dir DIR --model gpt.onnx --prompt 1,2,3 [--steps 33]
//        [--threads 1] [--layers 12 --heads 12 --dim 768]
'use strict';

const path = require('path');

function parseArgs(argv) {
  const a = { steps: 33, threads: 1, layers: 12, heads: 12, dim: 768 };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`--${key} needs a value`);
    if (key === 'ort-dir') a.ortDir = value;
    else if (key === 'model') a.model = value;
    else if (key === 'prompt') a.prompt = value.split(',').map(Number);
    else if (['steps', 'threads', 'layers', 'heads', 'dim'].includes(key)) a[key] = Number(value);
    else throw new Error(`unknown option --${key}`);
  }
  if (!a.ortDir || !a.model || !a.prompt) throw new Error('needs --ort-dir, --model, --prompt');
  return a;
}

function argmax(data) {
  let best = 0;
  for (let i = 1; i < data.length; i += 1) if (data[i] > data[best]) best = i;
  return best;
}

async function main() {
  const a = parseArgs(process.argv);
  const ort = require(path.resolve(a.ortDir, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  });
  const dh = a.dim / a.heads;
  let pastK = new ort.Tensor('float32', new Float32Array(0), [a.layers, a.heads, 0, dh]);
  let pastV = pastK;
  let pos = 0;
  const run = async (token) => {
    const out = await session.run({
      token: new ort.Tensor('int64', BigInt64Array.from([BigInt(token)]), [1]),
      pos: new ort.Tensor('int64', BigInt64Array.from([BigInt(pos)]), [1]),
      past_k: pastK,
      past_v: pastV,
    });
    pastK = out.present_k;
    pastV = out.present_v;
    pos += 1;
    return argmax(out.logits.data);
  };
  const t0 = process.hrtime.bigint();
  let token = 0;
  for (const t of a.prompt) token = await run(t);
  const promptMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const tokens = [token];
  const cpu0 = process.cpuUsage();
  const t1 = process.hrtime.bigint();
  for (let i = 1; i < a.steps; i += 1) {
    token = await run(token);
    tokens.push(token);
  }
  const decodeS = Number(process.hrtime.bigint() - t1) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({
    onnxruntime: ort.env.versions.common,
    threads: a.threads,
    prompt_ms: promptMs,
    decode_tokens_per_s: (a.steps - 1) / decodeS,
    cpu_ms_per_token: (cpu.user + cpu.system) / 1000 / (a.steps - 1),
    tokens,
  })}\n`);
}

main().catch((err) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
