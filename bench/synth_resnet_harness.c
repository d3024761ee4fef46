/* Times examples/resnet/resnet.oi synthesized to C (`openinfer synth --target c --name resnet`):
 * one warm-up step, then STEPS steps on the image of INPUT.oinf, each timed alone (wall and
 * thread CPU time). Built with the generated resnet.c by bench/synth_resnet.sh.
 *
 *   synth_resnet_harness MODEL.oinf INPUT.oinf STEPS [OUT.bin]
 *
 * Prints JSON: ms_per_image_median (wall, the median step divided by the batch), min, cpu, and
 * with OUT.bin writes the logits of the last step (raw f32). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "resnet.h"

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s MODEL.oinf INPUT.oinf STEPS [OUT.bin]\n", argv[0]);
    return 2;
  }
  char err[512];
  resnet_state* s = NULL;
  if (resnet_create(argv[1], &s, err, sizeof err)) {
    fprintf(stderr, "error: %s\n", err);
    return 1;
  }
  resnet_oinf in;
  if (resnet_oinf_read(argv[2], &in, err, sizeof err)) {
    fprintf(stderr, "error: %s\n", err);
    return 1;
  }
  uint32_t dtype = 0, rank = 0;
  uint64_t dims[8], nbytes = 0;
  const unsigned char* data = NULL;
  if (resnet_oinf_tensor(&in, "image", &dtype, &rank, dims, &data, &nbytes, err, sizeof err) != 1 ||
      !data) {
    fprintf(stderr, "error: %s: no tensor 'image'\n", argv[2]);
    return 1;
  }
  const int steps = atoi(argv[3]);
  double* walls = malloc(((size_t)(steps > 0 ? steps : 0) + 1) * sizeof(double));
  double cpu = 0;
  for (int r = -1; r < steps; ++r) {
    const double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (resnet_insert(s, "image", data, (size_t)nbytes) || resnet_step(s)) {
      fprintf(stderr, "error: %s\n", resnet_error(s));
      return 1;
    }
    const double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (r >= 0) {
      walls[r] = t;
      cpu += c;
    }
  }
  const void* out = NULL;
  size_t out_bytes = 0;
  if (resnet_fetch(s, "logits", &out, &out_bytes)) {
    fprintf(stderr, "error: %s\n", resnet_error(s));
    return 1;
  }
  if (argc > 4) {
    FILE* f = fopen(argv[4], "wb");
    if (!f || fwrite(out, 1, out_bytes, f) != out_bytes) return 1;
    fclose(f);
  }
  qsort(walls, (size_t)(steps > 0 ? steps : 0), sizeof(double), cmp_double);
  const double batch = (double)dims[0];
  if (steps > 0)
    printf(
        "{\"ms_per_image_median\": %.3f, \"ms_per_image_min\": %.3f, \"cpu_ms_per_image\": %.3f, "
        "\"batch\": %.0f, \"steps\": %d}\n",
        1e3 * walls[steps / 2] / batch, 1e3 * walls[0] / batch, 1e3 * cpu / steps / batch, batch,
        steps);
  free(walls);
  resnet_oinf_free(&in);
  resnet_destroy(s);
  return 0;
}
