/* bench/synth_mlp.sh's timing harness: the generated MLP (model.h/model.c), its input x read
 * from INPUT.oinf and inserted before every step. Prints the mean, the median and the best of
 * REPS timed steps (one warm-up step first) in seconds, and GFLOP/s of the mean. */
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

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 5) return fprintf(stderr, "usage: %s MODEL.oinf INPUT.oinf REPS FLOPS\n", argv[0]), 2;
  const int reps = atoi(argv[3]);
  const double flops = atof(argv[4]);
  char err[512];
  model_state* s = NULL;
  if (model_create(argv[1], &s, err, sizeof err) != model_OK)
    return fprintf(stderr, "%s\n", err), 1;
  model_oinf in;
  if (model_oinf_read(argv[2], &in, err, sizeof err) != model_OK)
    return fprintf(stderr, "%s\n", err), 1;
  uint32_t dtype = 0, rank = 0;
  uint64_t dims[8], nbytes = 0;
  const unsigned char* x = NULL;
  if (model_oinf_tensor(&in, "x", &dtype, &rank, dims, &x, &nbytes, err, sizeof err) != 1)
    return fprintf(stderr, "%s: no tensor x\n", argv[2]), 1;
  double* t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
  if (!t || reps < 1) return 1;
  for (int r = -1; r < reps; ++r) {
    const double t0 = now();
    if (model_insert(s, "x", x, (size_t)nbytes) != model_OK || model_step(s) != model_OK)
      return fprintf(stderr, "%s\n", model_error(s)), 1;
    if (r >= 0) t[r] = now() - t0;
  }
  double sum = 0;
  for (int r = 0; r < reps; ++r) sum += t[r];
  qsort(t, (size_t)reps, sizeof *t, by_value);
  const double mean = sum / reps;
  printf("mean_s %.6f median_s %.6f best_s %.6f gflops %.2f\n", mean, t[reps / 2], t[0],
         flops / mean / 1e9);
  free(t);
  model_oinf_free(&in);
  model_destroy(s);
  return 0;
}
