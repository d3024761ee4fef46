/* A host driver for C generated in the freestanding profile (docs/synth.md): the command line
 * of the hosted driver (model_main.c) over the freestanding API's by-name functions, so that
 * tests/synth/c_vs_simulator.sh (SYNTH_FREESTANDING=1) holds the freestanding code against the
 * simulator on the host, also under ASan+UBSan:
 *
 *   prog [--model M.oinf (ignored: the weights are embedded)] [--steps N]
 *        [--input NAME=FILE[:TENSOR]]... [--fetch NAME]... [--save OUT.oinf] [--keep-going] [-q]
 *
 * --keep-going: a failed step prints its error and the next step runs (the step left persistent
 * memory and tables as they were; its fetches are saved too); the exit status is 1 at the end.
 *
 * Built with -DOI_MODEL=name -DOI_MODEL_HEADER='"name.h"'. --save writes the canonical OINF
 * file `openinfer run --save` writes (NAME for one step; NAME.stepK and NAME for several). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include OI_MODEL_HEADER

#define OI_CAT2(a, b) a##b
#define OI_CAT(a, b) OI_CAT2(a, b)
#define MODEL(x) OI_CAT(OI_MODEL, x)
#define MAX_ITEMS 64

static MODEL(_state) state;

static uint32_t u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t u64(const unsigned char* p) {
  return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}
static void put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* The whole file, or NULL. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char* data = NULL;
  long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (end >= 72 && fseek(f, 0, SEEK_SET) == 0) {
    data = (unsigned char*)malloc((size_t)end);
    if (data && fread(data, 1, (size_t)end, f) != (size_t)end) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  if (data && memcmp(data, "OINF\0", 5) != 0) {
    free(data);
    data = NULL;
  }
  *size = data ? (size_t)end : 0;
  return data;
}

/* Tensor `name` of an OINF file: its dtype tag and payload, 1; 0 when absent. */
static int find_tensor(const unsigned char* h, size_t size, const char* name, uint32_t* dtype,
                       const unsigned char** data, uint64_t* nbytes) {
  const uint32_t n = u32(h + 21);
  uint64_t pos = u64(h + 45);
  const uint64_t end = u64(h + 53);
  for (uint32_t i = 0; i < n && pos + 4 <= end; ++i) {
    const uint32_t len = u32(h + pos);
    const char* entry = (const char*)h + pos + 4;
    pos += (4 + (uint64_t)len + 7) / 8 * 8;
    const uint32_t tag = u32(h + pos), rank = u32(h + pos + 4), flags = u32(h + pos + 8);
    pos += 12;
    const uint64_t nb = u64(h + pos + 8 * rank), off = u64(h + pos + 8 * rank + 8);
    pos += 8 * (uint64_t)rank + 16;
    if (len == strlen(name) && memcmp(entry, name, len) == 0) {
      if (!(flags & 1u) || off > size || nb > size - off) return 0;
      *dtype = tag;
      *data = h + off;
      *nbytes = nb;
      return 1;
    }
  }
  return 0;
}

typedef struct entry {
  char* name;
  uint32_t dtype, rank;
  const uint64_t* dims;
  void* data;
  uint64_t nbytes;
} entry;

static int by_name(const void* a, const void* b) {
  return strcmp(((const entry*)a)->name, ((const entry*)b)->name);
}

/* The canonical OINF writer of the hosted runtime: entries sorted by name, 8-byte alignment. */
static int write_oinf(const char* path, entry* entries, size_t count) {
  qsort(entries, count, sizeof *entries, by_name);
  uint64_t table = 0, payload = 0;
  for (size_t i = 0; i < count; ++i) {
    table += (4 + strlen(entries[i].name) + 7) / 8 * 8 + 12 + 8 * (uint64_t)entries[i].rank + 16;
    payload += (entries[i].nbytes + 7) / 8 * 8;
  }
  const uint64_t data_off = 72 + (table + 7) / 8 * 8, size = data_off + payload;
  unsigned char* buf = (unsigned char*)calloc(1, (size_t)size);
  if (!buf) return 1;
  memcpy(buf, "OINF\0", 5);
  put32(buf + 5, 1);
  put32(buf + 21, (uint32_t)count);
  put64(buf + 29, 72);
  put64(buf + 37, 72);
  put64(buf + 45, 72);
  put64(buf + 53, data_off);
  put64(buf + 61, size);
  uint64_t pos = 72, cursor = data_off;
  for (size_t i = 0; i < count; ++i) {
    const entry* e = &entries[i];
    const uint32_t len = (uint32_t)strlen(e->name);
    put32(buf + pos, len);
    memcpy(buf + pos + 4, e->name, len);
    pos += (4 + (uint64_t)len + 7) / 8 * 8;
    put32(buf + pos, e->dtype);
    put32(buf + pos + 4, e->rank);
    put32(buf + pos + 8, 1u);
    pos += 12;
    for (uint32_t k = 0; k < e->rank; ++k, pos += 8) put64(buf + pos, e->dims[k]);
    put64(buf + pos, e->nbytes);
    put64(buf + pos + 8, cursor);
    pos += 16;
    if (e->nbytes) memcpy(buf + cursor, e->data, (size_t)e->nbytes);
    cursor += (e->nbytes + 7) / 8 * 8;
  }
  FILE* f = fopen(path, "wb");
  int ok = f && fwrite(buf, 1, (size_t)size, f) == (size_t)size;
  if (f && fclose(f) != 0) ok = 0;
  free(buf);
  return ok ? 0 : 1;
}

static int fail(const char* message) {
  fprintf(stderr, "error: %s\n", message);
  return 1;
}

int main(int argc, char** argv) {
  const char* inputs[MAX_ITEMS];
  const char* fetch[MAX_ITEMS];
  size_t n_inputs = 0, n_fetch = 0;
  const char* save = NULL;
  long steps = 1;
  int quiet = 0, keep_going = 0, failed_steps = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const int more = i + 1 < argc;
    if (strcmp(a, "--model") == 0 && more)
      ++i; /* the weights are embedded */
    else if (strcmp(a, "--steps") == 0 && more)
      steps = strtol(argv[++i], NULL, 10);
    else if (strcmp(a, "--input") == 0 && more && n_inputs < MAX_ITEMS)
      inputs[n_inputs++] = argv[++i];
    else if (strcmp(a, "--fetch") == 0 && more && n_fetch < MAX_ITEMS)
      fetch[n_fetch++] = argv[++i];
    else if (strcmp(a, "--save") == 0 && more)
      save = argv[++i];
    else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
      quiet = 1;
    else if (strcmp(a, "--keep-going") == 0)
      keep_going = 1;
    else
      return fprintf(stderr,
                     "usage: %s [--steps N] [--input NAME=FILE[:TENSOR]]... "
                     "[--fetch NAME]... [--save OUT.oinf] [--keep-going] [-q]\n",
                     argv[0]),
             2;
  }
  if (steps < 1) return fail("--steps must be at least 1");
  if (n_fetch == 0) {
    size_t count = 0;
    const char* const* outs = MODEL(_outputs)(&count);
    for (size_t i = 0; i < count && i < MAX_ITEMS; ++i) fetch[n_fetch++] = outs[i];
  }
  for (size_t i = 0; i < n_fetch; ++i)
    if (!MODEL(_var)(fetch[i])) return fail("--fetch: no such variable");
  int rc = MODEL(_init)(&state, NULL);
  if (rc != MODEL(_OK)) return fail(MODEL(_strerror)(rc));
  const size_t cap = (size_t)steps * n_fetch + n_fetch;
  entry* saved = (entry*)calloc(cap ? cap : 1, sizeof *saved);
  void** owned = (void**)calloc(cap ? cap : 1, sizeof *owned);
  size_t n_saved = 0, n_owned = 0;
  if (!saved || !owned) return fail("out of memory");
  rc = 0;
  for (long step = 0; step < steps && rc == 0; ++step) {
    for (size_t i = 0; i < n_inputs && rc == 0; ++i) {
      char spec[1024], file[1024], tensor[256];
      snprintf(spec, sizeof spec, "%s", inputs[i]);
      char* eq = strchr(spec, '=');
      if (!eq) {
        rc = fail("--input needs NAME=FILE");
        break;
      }
      *eq = '\0';
      const char* rest = eq + 1;
      const char* colon = strrchr(rest, ':');
      snprintf(file, sizeof file, "%.*s", colon ? (int)(colon - rest) : (int)strlen(rest), rest);
      const char* pattern = colon ? colon + 1 : spec;
      tensor[0] = '\0';
      for (const char* p = pattern; *p && strlen(tensor) + 24 < sizeof tensor;) {
        if (strncmp(p, "{step}", 6) == 0) {
          snprintf(tensor + strlen(tensor), sizeof tensor - strlen(tensor), "%ld", step);
          p += 6;
        } else {
          const size_t l = strlen(tensor);
          tensor[l] = *p++;
          tensor[l + 1] = '\0';
        }
      }
      size_t size = 0;
      unsigned char* f = read_file(file, &size);
      uint32_t dtype = 0;
      const unsigned char* data = NULL;
      uint64_t nbytes = 0;
      if (!f) {
        rc = fail("cannot read an --input file");
      } else if (find_tensor(f, size, tensor, &dtype, &data, &nbytes)) {
        const MODEL(_var_info)* v = MODEL(_var)(spec);
        if (!v || v->dtype != dtype)
          rc = fail("--input: another dtype");
        else if ((rc = MODEL(_insert)(&state, spec, data, (size_t)nbytes)) != MODEL(_OK))
          rc = fail(MODEL(_strerror)(rc));
      }
      free(f);
    }
    if (rc) break;
    if (MODEL(_step)(&state) != MODEL(_OK)) {
      fail(MODEL(_error)(&state));
      ++failed_steps;
      if (!keep_going) {
        rc = 1;
        break;
      }
    }
    if (!quiet) printf("step %ld:\n", step);
    for (size_t i = 0; i < n_fetch && save; ++i) {
      const MODEL(_var_info)* v = MODEL(_var)(fetch[i]);
      const void* data = NULL;
      size_t bytes = 0;
      if (MODEL(_fetch)(&state, fetch[i], &data, &bytes) != MODEL(_OK)) {
        rc = fail(MODEL(_error)(&state));
        break;
      }
      entry e = {NULL, v->dtype, v->rank, v->dims, malloc(bytes ? bytes : 1), bytes};
      e.name = (char*)malloc(strlen(fetch[i]) + 32);
      if (!e.data || !e.name) return fail("out of memory");
      memcpy(e.data, data, bytes);
      owned[n_owned++] = e.data;
      if (steps > 1)
        sprintf(e.name, "%s.step%ld", fetch[i], step);
      else
        strcpy(e.name, fetch[i]);
      saved[n_saved++] = e;
      if (steps > 1 && step == steps - 1) {
        entry last = e;
        last.name = (char*)malloc(strlen(fetch[i]) + 1);
        if (!last.name) return fail("out of memory");
        strcpy(last.name, fetch[i]);
        saved[n_saved++] = last;
      }
    }
  }
  if (rc == 0 && save && write_oinf(save, saved, n_saved) != 0) rc = fail("cannot write --save");
  if (rc == 0 && failed_steps) rc = 1; /* --keep-going: the steps after a failure still ran */
  for (size_t i = 0; i < n_saved; ++i) free(saved[i].name);
  for (size_t i = 0; i < n_owned; ++i) free(owned[i]);
  free(saved);
  free(owned);
  return rc;
}
