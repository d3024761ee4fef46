/* Times examples/gpt/gpt.oi synthesized to C (`openinfer synth --target c --name gpt`): step 0
 * feeds the model's prompt, every later step decodes one token (greedy). Built with the
 * generated gpt.c by bench/synth_gpt.sh.
 *
 *   synth_gpt_harness MODEL.oinf STEPS
 *
 * Prints JSON: the prompt step's ms, decode tokens/s over steps 1 .. STEPS-1 (wall), the
 * thread's CPU ms per decoded token, and the STEPS tokens picked (for a check). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpt.h"

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.oinf STEPS\n", argv[0]);
    return 2;
  }
  char err[512];
  gpt_state* s = NULL;
  if (gpt_create(argv[1], &s, err, sizeof err)) {
    fprintf(stderr, "error: %s\n", err);
    return 1;
  }
  const int steps = atoi(argv[2]);
  int64_t* tokens = malloc(((size_t)(steps > 0 ? steps : 0) + 1) * sizeof(int64_t));
  double prompt_s = 0, t_dec = 0, c_dec = 0;
  for (int i = 0; i < steps; ++i) {
    const double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (gpt_step(s)) {
      fprintf(stderr, "error: %s\n", gpt_error(s));
      return 1;
    }
    const double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (i == 0) {
      prompt_s = t;
    } else {
      t_dec += t;
      c_dec += c;
    }
    const void* data = NULL;
    size_t bytes = 0;
    if (gpt_fetch(s, "next", &data, &bytes)) {
      fprintf(stderr, "error: %s\n", gpt_error(s));
      return 1;
    }
    tokens[i] = *(const int64_t*)data;
  }
  printf(
      "{\"prompt_ms\": %.2f, \"decode_tokens_per_s\": %.3f, \"cpu_ms_per_token\": %.2f, "
      "\"tokens\": [",
      1e3 * prompt_s, steps > 1 ? (steps - 1) / t_dec : 0.0,
      steps > 1 ? 1e3 * c_dec / (steps - 1) : 0.0);
  for (int i = 0; i < steps; ++i) printf("%s%lld", i ? ", " : "", (long long)tokens[i]);
  printf("]}\n");
  free(tokens);
  gpt_destroy(s);
  return 0;
}
