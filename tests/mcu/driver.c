/* The tests/mcu driver: runs a model generated in the C target's freestanding profile
 * (docs/synth.md) on a Cortex-M board under QEMU, with semihosting for its files.
 *
 *   driver --steps N --inputs IN.bin --outputs OUT.bin [--input NAME]... [--fetch NAME]...
 *          [--keep-going]
 *
 * Per step it reads each --input's bytes from IN.bin (in order), inserts them, runs the step and
 * appends each --fetch's bytes (default: the returned names) to OUT.bin. A failed step prints
 * "driver: step K: MESSAGE" and ends the run (exit 1); with --keep-going its fetches are written
 * too (what the step left: persistent values as they were before it) and the next step runs
 * (exit 0). Built with
 * -DOI_MODEL=name -DOI_MODEL_HEADER='"name.h"'. It measures what the model costs:
 *   - instructions per step: SysTick counts the board's clock, which QEMU's -icount shift=0
 *     ties to instructions (1 ns each); calibrated against a loop of known length, so the
 *     figure counts instructions, not cycles;
 *   - the deepest stack of init, insert, step and fetch: the stack is painted before each call
 *     and the lowest word changed is found after it;
 * and prints them on the console as "mcu: KEY VALUE" lines for the tests. */
#include <stddef.h>
#include <stdint.h>

#include OI_MODEL_HEADER
#include "semihost.h"

#define OI_CAT2(a, b) a##b
#define OI_CAT(a, b) OI_CAT2(a, b)
#define MODEL(x) OI_CAT(OI_MODEL, x)

#ifndef OI_IO_BYTES
#define OI_IO_BYTES (64u * 1024u)
#endif
#define MAX_NAMES 16

/* The model's state (nm finds its size under this name). */
MODEL(_state) oi_model_state;
static unsigned char io[OI_IO_BYTES] __attribute__((aligned(16)));

/* ---- output ---- */

static void put(const char* s) {
  sh_puts(s);
}

static void put_u64(uint64_t v) {
  char text[24];
  int n = 23;
  text[n] = '\0';
  do {
    /* v % 10 and v / 10 without a 64-bit division (no libgcc helper) */
    uint64_t q = (v >> 1) + (v >> 2);
    q += q >> 4;
    q += q >> 8;
    q += q >> 16;
    q += q >> 32;
    q >>= 3;
    uint64_t r = v - q * 10u;
    while (r > 9u) {
      ++q;
      r -= 10u;
    }
    text[--n] = (char)('0' + (int)r);
    v = q;
  } while (v);
  put(text + n);
}

static void line(const char* key, uint64_t value) {
  put("mcu: ");
  put(key);
  put(" ");
  put_u64(value);
  put("\n");
}

static int fail(const char* what, const char* name) {
  put("driver: ");
  put(what);
  if (name) {
    put(" ");
    put(name);
  }
  put("\n");
  return 1;
}

static int same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

/* ---- instructions: SysTick at the board's clock, QEMU's -icount shift=0 ---- */

#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t*)0xE000ED04u)

static volatile uint32_t wraps;
void oi_systick_handler(void) {
  ++wraps;
}

static uint64_t ticks(void) {
  for (;;) {
    uint32_t w = wraps;
    const uint32_t v = SYST_CVR, pending = (SCB_ICSR >> 26) & 1u;
    if (w != wraps) continue;
    if (pending && v > 0x800000u) ++w; /* wrapped; the handler has not run yet */
    return ((uint64_t)w << 24) | (0xFFFFFFu - v);
  }
}

/* 2 * n instructions: SUBS and BNE, n times. */
static void __attribute__((noinline)) spin(uint32_t n) {
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

/* Instructions per tick, times 2^16. */
static uint64_t insn_per_tick_q16;
static uint64_t calls_ticks; /* the measuring itself, subtracted */

static void calibrate(void) {
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 7u; /* enabled, interrupt on wrap, the processor's clock */
  uint64_t t0 = ticks(), t1 = ticks();
  calls_ticks = t1 - t0;
  const uint32_t n = 1000000u;
  t0 = ticks();
  spin(n);
  t1 = ticks();
  insn_per_tick_q16 = ((uint64_t)2u * n << 16) / (t1 - t0 - calls_ticks);
}

static uint64_t instructions(uint64_t t) {
  t = t > calls_ticks ? t - calls_ticks : 0;
  return (t * insn_per_tick_q16 + 0x8000u) >> 16;
}

/* ---- the stack: painted below the caller, the lowest changed word found after a call ---- */

extern uint32_t __stack_limit;
#define PAINT 0x5AC3C35Au

static inline __attribute__((always_inline)) uint32_t* sp_now(void) {
  uint32_t* sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/* Paints everything below the caller's stack pointer: a macro, so that no frame of its own lies
 * there (the loop needs none). */
#define PAINT_BELOW(sp)                                               \
  do {                                                                \
    for (uint32_t* p_ = &__stack_limit; p_ < (sp); ++p_) *p_ = PAINT; \
  } while (0)

/* Bytes of stack a call made at `sp` used. */
static uint32_t used_below(const uint32_t* sp) {
  const uint32_t* p = &__stack_limit;
  while (p < sp && *p == PAINT) ++p;
  return (uint32_t)((const unsigned char*)sp - (const unsigned char*)p);
}

/* ---- the command line ---- */

static char cmdline[1024];
static const char* inputs[MAX_NAMES];
static const char* fetches[MAX_NAMES];

int main(void) {
  if (sh_cmdline(cmdline, sizeof cmdline) != 0) return fail("no command line", NULL);
  const char* words[64];
  int argc = 0;
  for (char* p = cmdline; *p && argc < 64;) {
    while (*p == ' ') *p++ = '\0';
    if (!*p) break;
    words[argc++] = p;
    while (*p && *p != ' ') ++p;
  }
  uint32_t steps = 1, n_in = 0, n_fetch = 0;
  int keep_going = 0;
  const char *in_path = NULL, *out_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* a = words[i];
    const int more = i + 1 < argc;
    if (same(a, "--steps") && more) {
      steps = 0;
      for (const char* d = words[++i]; *d; ++d) steps = steps * 10u + (uint32_t)(*d - '0');
    } else if (same(a, "--inputs") && more) {
      in_path = words[++i];
    } else if (same(a, "--outputs") && more) {
      out_path = words[++i];
    } else if (same(a, "--input") && more && n_in < MAX_NAMES) {
      inputs[n_in++] = words[++i];
    } else if (same(a, "--fetch") && more && n_fetch < MAX_NAMES) {
      fetches[n_fetch++] = words[++i];
    } else if (same(a, "--keep-going")) {
      keep_going = 1;
    } else {
      return fail(
          "usage: driver --steps N --inputs IN --outputs OUT [--input NAME]... "
          "[--fetch NAME]... [--keep-going]; not understood:",
          a);
    }
  }
  if (n_fetch == 0) {
    size_t count = 0;
    const char* const* outs = MODEL(_outputs)(&count);
    for (size_t k = 0; k < count && n_fetch < MAX_NAMES; ++k) fetches[n_fetch++] = outs[k];
  }
  const int fin = n_in ? sh_open(in_path ? in_path : "", "rb") : -1;
  const int fout = sh_open(out_path ? out_path : "outputs.bin", "wb");
  if ((n_in && fin < 0) || fout < 0) return fail("cannot open the input or output file", NULL);

  calibrate();
  uint32_t* sp;
  uint32_t stack_init, stack_insert = 0, stack_step = 0, stack_fetch = 0;
  sp = sp_now();
  PAINT_BELOW(sp);
  int rc = MODEL(_init)(&oi_model_state, NULL);
  stack_init = used_below(sp);
  if (rc != MODEL(_OK)) return fail("init:", MODEL(_strerror)(rc));

  uint64_t total = 0, least = UINT64_MAX, most = 0;
  for (uint32_t step = 0; step < steps; ++step) {
    for (uint32_t k = 0; k < n_in; ++k) {
      const MODEL(_var_info)* v = MODEL(_var)(inputs[k]);
      if (!v || !v->input) return fail("no dynamic input", inputs[k]);
      if (v->bytes > sizeof io) return fail("input larger than the driver's buffer:", inputs[k]);
      if (sh_read(fin, io, v->bytes) != 0) return fail("short input file at", inputs[k]);
      sp = sp_now();
      PAINT_BELOW(sp);
      rc = MODEL(_insert)(&oi_model_state, inputs[k], io, v->bytes);
      const uint32_t used = used_below(sp);
      if (used > stack_insert) stack_insert = used;
      if (rc != MODEL(_OK)) return fail("insert:", MODEL(_strerror)(rc));
    }
    sp = sp_now();
    PAINT_BELOW(sp);
    const uint64_t t0 = ticks();
    rc = MODEL(_step)(&oi_model_state);
    const uint64_t t1 = ticks();
    const uint32_t used = used_below(sp);
    if (used > stack_step) stack_step = used;
    if (rc != MODEL(_OK)) {
      put("driver: step ");
      put_u64(step);
      put(": ");
      put(MODEL(_error)(&oi_model_state));
      put("\n");
      if (!keep_going) return 1;
    }
    const uint64_t n = instructions(t1 - t0);
    total += n;
    if (n < least) least = n;
    if (n > most) most = n;
    for (uint32_t k = 0; k < n_fetch; ++k) {
      const void* data = NULL;
      size_t bytes = 0;
      sp = sp_now();
      PAINT_BELOW(sp);
      rc = MODEL(_fetch)(&oi_model_state, fetches[k], &data, &bytes);
      const uint32_t f = used_below(sp);
      if (f > stack_fetch) stack_fetch = f;
      if (rc != MODEL(_OK)) return fail("fetch:", fetches[k]);
      if (sh_write(fout, data, bytes) != 0) return fail("cannot write", out_path);
    }
  }
  if (fin >= 0) sh_close(fin);
  sh_close(fout);
  line("steps", steps);
  line("instructions_total", total);
  line("instructions_min", least);
  line("instructions_max", most);
  line("stack_init", stack_init);
  line("stack_insert", stack_insert);
  line("stack_step", stack_step);
  line("stack_fetch", stack_fetch);
  line("state_bytes", sizeof oi_model_state);
  line("arena_bytes", MODEL(_ARENA_BYTES));
  return 0;
}
