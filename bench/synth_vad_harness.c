/* Times the Silero VAD synthesized to C (examples/silero_vad/vad.oi, `openinfer synth --target c
 * --embed-weights --name vad`) per 512-sample chunk, as a streaming host runs it: per chunk
 * vad_insert, vad_step and vad_fetch. Built with the generated vad.c by bench/synth_vad.sh.
 *
 *   synth_vad_harness WAV PASSES [--probs]
 *
 * One untimed pass, then PASSES timed passes over the file, each from a fresh state (created
 * outside the timed region, as ort_reference.js reuses its session and resets the LSTM state).
 * Prints JSON: us_per_chunk (wall, mean over the passes, as `vad --repeat` and
 * ort_reference.js --bench report), median_pass_us_per_chunk and min_pass_us_per_chunk (the
 * median and fastest pass), cpu_us_per_chunk (the thread's CPU time), chunks, passes, and with
 * --probs the first pass's probabilities. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vad.h"

#define CHUNK 512

static float* read_wav(const char* path, size_t* count) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc((size_t)size);
  if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(buf);
    return NULL;
  }
  fclose(f);
  float* out = NULL;
  size_t at = 12;
  int pcm16 = 0;
  while (at + 8 <= (size_t)size) {
    uint32_t len = (uint32_t)buf[at + 4] | (uint32_t)buf[at + 5] << 8 |
                   (uint32_t)buf[at + 6] << 16 | (uint32_t)buf[at + 7] << 24;
    if (!memcmp(buf + at, "fmt ", 4))
      pcm16 = buf[at + 8] == 1 && buf[at + 10] == 1 && buf[at + 22] == 16;
    if (!memcmp(buf + at, "data", 4) && pcm16) {
      size_t n = len / 2;
      if (at + 8 + n * 2 > (size_t)size) n = ((size_t)size - at - 8) / 2;
      out = malloc(n * sizeof(float) + 1);
      for (size_t i = 0; out && i < n; ++i)
        out[i] = (float)(int16_t)(buf[at + 8 + 2 * i] | buf[at + 9 + 2 * i] << 8) / 32768.0f;
      *count = n;
      break;
    }
    at += 8 + len + (len & 1);
  }
  free(buf);
  return out;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* One pass from a fresh state; returns the wall seconds of its chunk loop (insert, step, fetch
 * per chunk; the state's creation is outside), -1 on error; *cpu gets its thread CPU seconds. */
static double pass(const float* samples, size_t n, size_t chunks, float* probs, double* cpu) {
  char err[256];
  vad_state* s = NULL;
  if (vad_create(NULL, &s, err, sizeof err)) {
    fprintf(stderr, "error: %s\n", err);
    return -1;
  }
  float chunk[CHUNK];
  const double t0 = now_s(), c0 = cpu_s();
  for (size_t c = 0; c < chunks; ++c) {
    size_t have = n - c * CHUNK < CHUNK ? n - c * CHUNK : CHUNK;
    memcpy(chunk, samples + c * CHUNK, have * sizeof(float));
    memset(chunk + have, 0, (CHUNK - have) * sizeof(float));
    const void* data;
    size_t bytes;
    if (vad_insert(s, "chunk", chunk, sizeof chunk) || vad_step(s) ||
        vad_fetch(s, "prob", &data, &bytes)) {
      fprintf(stderr, "error: %s\n", vad_error(s));
      vad_destroy(s);
      return -1;
    }
    if (probs) probs[c] = *(const float*)data;
  }
  const double spent = now_s() - t0;
  *cpu = cpu_s() - c0;
  vad_destroy(s);
  return spent;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s WAV PASSES [--probs]\n", argv[0]);
    return 2;
  }
  size_t n = 0;
  float* samples = read_wav(argv[1], &n);
  if (!samples) {
    fprintf(stderr, "error: %s: not a 16-bit PCM WAV\n", argv[1]);
    return 1;
  }
  const int passes = atoi(argv[2]);
  const int with_probs = argc > 3 && !strcmp(argv[3], "--probs");
  const size_t chunks = (n + CHUNK - 1) / CHUNK;
  float* probs = malloc(chunks * sizeof(float) + 1);
  double cpu = 0;
  double* walls = malloc(((size_t)(passes > 0 ? passes : 0) + 1) * sizeof(double));
  if (!probs || !walls || pass(samples, n, chunks, probs, &cpu) < 0) return 1;
  double total = 0, cpu_total = 0;
  for (int r = 0; r < passes; ++r) {
    walls[r] = pass(samples, n, chunks, NULL, &cpu);
    if (walls[r] < 0) return 1;
    total += walls[r];
    cpu_total += cpu;
  }
  qsort(walls, (size_t)(passes > 0 ? passes : 0), sizeof(double), cmp_double);
  const double per = 1e6 / (double)chunks;
  printf(
      "{\"us_per_chunk\": %.2f, \"median_pass_us_per_chunk\": %.2f, "
      "\"min_pass_us_per_chunk\": %.2f, \"cpu_us_per_chunk\": %.2f, \"chunks\": %zu, "
      "\"passes\": %d",
      passes > 0 ? per * total / passes : 0.0, passes > 0 ? per * walls[passes / 2] : 0.0,
      passes > 0 ? per * walls[0] : 0.0, passes > 0 ? per * cpu_total / passes : 0.0, chunks,
      passes);
  if (with_probs) {
    printf(", \"probabilities\": [");
    for (size_t c = 0; c < chunks; ++c) printf("%s%.9g", c ? ", " : "", (double)probs[c]);
    printf("], \"segments\": []");
  }
  printf("}\n");
  free(walls);
  free(probs);
  free(samples);
  return 0;
}
