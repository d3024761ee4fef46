/* bench/synth_chain.sh's timing harness: the generated chain (model.h/model.c) and a
 * STREAM-style probe (copy and scale over arrays of the chain's size) in one process, built
 * with the same flags. Prints best-of-REPS seconds per step and the bandwidths. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s MODEL.oinf REPS\n", argv[0]), 2;
  int reps = atoi(argv[2]);
  char err[512];
  model_state* s = NULL;
  if (model_create(argv[1], &s, err, sizeof err) != model_OK)
    return fprintf(stderr, "%s\n", err), 1;
  const model_var_info* y = model_var("y");
  size_t n = y->bytes / sizeof(float);
  double best_chain = 1e30, best_copy = 1e30, best_scale = 1e30;
  float* a = malloc(n * sizeof *a);
  float* b = malloc(n * sizeof *b);
  if (!a || !b) return 1;
  for (size_t i = 0; i < n; ++i) a[i] = (float)i, b[i] = 0.0f;
  volatile float sink = 0.0f;
  /* Interleaved, so that load from other processes hits the three alike; rep 0 warms up. */
  for (int r = 0; r < reps + 1; ++r) {
    double t0 = now();
    if (model_step(s) != model_OK) return fprintf(stderr, "%s\n", model_error(s)), 1;
    double dt = now() - t0;
    if (r > 0 && dt < best_chain) best_chain = dt;
    t0 = now();
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    dt = now() - t0;
    sink += b[n / 2];
    if (r > 0 && dt < best_copy) best_copy = dt;
    t0 = now();
    for (size_t i = 0; i < n; ++i) b[i] = 3.0f * a[i];
    dt = now() - t0;
    sink += b[n / 3];
    if (r > 0 && dt < best_scale) best_scale = dt;
  }
  const double bytes = 2.0 * (double)n * sizeof(float); /* STREAM counting: read + write */
  printf("elements %zu\n", n);
  printf("chain_s %.6f chain_GBps %.2f\n", best_chain, bytes / best_chain / 1e9);
  printf("copy_s %.6f copy_GBps %.2f\n", best_copy, bytes / best_copy / 1e9);
  printf("scale_s %.6f scale_GBps %.2f\n", best_scale, bytes / best_scale / 1e9);
  free(a);
  free(b);
  model_destroy(s);
  return sink == 12345.0f;
}
