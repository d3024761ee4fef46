// The fixed C the emitter writes next to each plan's kernels: the OINF reader (validating what
// it reads, oinf.md), the canonical OINF writer, and the driver program. "@NAME@" is replaced
// by the base name. C11, libc and libm only.
#include "c_generator.hpp"

namespace oi::c_emitter {

const char* const kRuntimeH = R"C(
enum {
  @NAME@_OK = 0,
  @NAME@_ERR_IO = 1,     /* a file cannot be read or written */
  @NAME@_ERR_FORMAT = 2, /* a malformed .oinf file */
  @NAME@_ERR_MODEL = 3,  /* a model entry of another dtype or shape than declared */
  @NAME@_ERR_NAME = 4,   /* no variable of that name */
  @NAME@_ERR_INPUT = 5,  /* a dynamic input missing, or of the wrong size */
  @NAME@_ERR_MEMORY = 6, /* an allocation failed */
  @NAME@_ERR_RUN = 7,    /* an op failed during a step (a gather index out of range) */
  @NAME@_ERR_BUDGET = 8  /* a step's tables would grow past @NAME@_set_max_table_bytes */
};

typedef struct @NAME@_state @NAME@_state;

/* A declared variable: dtype is its OINF tag, dims its shape. */
typedef struct @NAME@_var_info {
  const char* name;
  uint32_t dtype;
  uint32_t rank;
  const uint64_t* dims;
  size_t bytes;
} @NAME@_var_info;

/* Creates the state: persistent and constant memory, weights read from the .oinf (checked
 * against the declarations). Returns an error code and writes a message into err. */
int @NAME@_create(const char* model_path, @NAME@_state** out, char* err, size_t err_size);
/* 0 when the weights are embedded (--embed-weights): create then reads no file (model_path
 * may be NULL). */
int @NAME@_needs_model(void);
void @NAME@_destroy(@NAME@_state* s);
/* Copies a dynamic input for the next step (exactly the variable's bytes). */
int @NAME@_insert(@NAME@_state* s, const char* name, const void* data, size_t bytes);
/* Runs one step. Every dynamic input must have been inserted since the previous step. A step
 * that fails (any error code) leaves persistent variables and tables as they were before it. */
int @NAME@_step(@NAME@_state* s);
/* The table budget (`openinfer run --max-table-bytes`): a step whose table writes would make
 * the persistent tables and @auto_dim matrices hold more than `bytes` fails before allocating,
 * with @NAME@_ERR_BUDGET and a message naming the table, its size and the limit. 0 (the start):
 * no limit. */
void @NAME@_set_max_table_bytes(@NAME@_state* s, uint64_t bytes);
/* What the tables hold now, as the budget counts it: written entries x entry bytes, plus the
 * bytes of every @auto_dim matrix accessed since its last reset. */
uint64_t @NAME@_table_bytes(const @NAME@_state* s);
/* The current value of a declared variable (valid until the next step or destroy; a persistent
 * table's entries are packed into a buffer of the state, valid until its next fetch too). */
int @NAME@_fetch(const @NAME@_state* s, const char* name, const void** data, size_t* bytes);
/* The shape of what fetch gives now: the declaration's, except that a persistent table comes
 * whole (dsl.md), its growable indices at their current sizes. */
int @NAME@_fetch_dims(const @NAME@_state* s, const char* name, uint32_t* rank,
                      uint64_t dims[@NAME@_MAX_RANK]);
/* The message of the last error of `s`. */
const char* @NAME@_error(const @NAME@_state* s);
const @NAME@_var_info* @NAME@_var(const char* name);
/* The names entry's `return` lists. */
const char* const* @NAME@_outputs(size_t* count);

/* OINF files (oinf.md), read whole and validated. */
typedef struct @NAME@_oinf {
  unsigned char* data;
  size_t size;
} @NAME@_oinf;
int @NAME@_oinf_read(const char* path, @NAME@_oinf* out, char* err, size_t err_size);
void @NAME@_oinf_free(@NAME@_oinf* f);
/* Tensor `name`: 1 found (data NULL for a declaration without data), 0 absent, -1 malformed. */
int @NAME@_oinf_tensor(const @NAME@_oinf* f, const char* name, uint32_t* dtype, uint32_t* rank,
                       uint64_t dims[@NAME@_MAX_RANK], const unsigned char** data, uint64_t* nbytes, char* err,
                       size_t err_size);
typedef struct @NAME@_oinf_entry {
  const char* name;
  uint32_t dtype;
  uint32_t rank;
  const uint64_t* dims;
  const void* data;
  uint64_t nbytes;
} @NAME@_oinf_entry;
/* Writes a canonical file of tensors (entries are sorted here), through a temporary file. */
int @NAME@_oinf_write(const char* path, @NAME@_oinf_entry* entries, size_t count, char* err,
                      size_t err_size);
)C";

const char* const kRuntimeC = R"C(
/* ---- OINF reading and writing (oinf.md) ---- */

static uint32_t oi_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t oi_u64(const unsigned char* p) {
  return (uint64_t)oi_u32(p) | (uint64_t)oi_u32(p + 4) << 32;
}
static void oi_put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void oi_put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

int @NAME@_oinf_read(const char* path, @NAME@_oinf* out, char* err, size_t err_size) {
  out->data = NULL;
  out->size = 0;
  FILE* f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: cannot open", path);
    return @NAME@_ERR_IO;
  }
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    snprintf(err, err_size, "%s: cannot read", path);
    return @NAME@_ERR_IO;
  }
  long end = ftell(f);
  if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    snprintf(err, err_size, "%s: cannot read", path);
    return @NAME@_ERR_IO;
  }
  size_t size = (size_t)end;
  unsigned char* data = (unsigned char*)malloc(size ? size : 1);
  if (!data) {
    fclose(f);
    snprintf(err, err_size, "%s: out of memory", path);
    return @NAME@_ERR_MEMORY;
  }
  if (fread(data, 1, size, f) != size) {
    free(data);
    fclose(f);
    snprintf(err, err_size, "%s: cannot read", path);
    return @NAME@_ERR_IO;
  }
  fclose(f);
  if (size < 72 || memcmp(data, "OINF\0", 5) != 0 || oi_u32(data + 5) != 1 ||
      oi_u64(data + 61) != (uint64_t)size) {
    free(data);
    snprintf(err, err_size, "%s: not an OINF version 1 file (bad magic, version or file_size)",
             path);
    return @NAME@_ERR_FORMAT;
  }
  uint64_t prev = 72;
  for (int i = 0; i < 4; ++i) {
    uint64_t off = oi_u64(data + 29 + 8 * i);
    if (off % 8 != 0 || off < prev || off > size) {
      free(data);
      snprintf(err, err_size, "%s: table offsets out of order, unaligned or past the end", path);
      return @NAME@_ERR_FORMAT;
    }
    prev = off;
  }
  out->data = data;
  out->size = size;
  return @NAME@_OK;
}

void @NAME@_oinf_free(@NAME@_oinf* f) {
  free(f->data);
  f->data = NULL;
  f->size = 0;
}

/* Reads a string at *pos: 0 on success (name, len), -1 when it runs past `end`. */
static int oi_string(const @NAME@_oinf* f, uint64_t* pos, uint64_t end, const char** name,
                     uint32_t* len) {
  if (*pos + 4 > end) return -1;
  *len = oi_u32(f->data + *pos);
  uint64_t total = (4 + (uint64_t)*len + 7) / 8 * 8;
  if (*len == 0 || *pos + total > end) return -1;
  *name = (const char*)f->data + *pos + 4;
  *pos += total;
  return 0;
}

int @NAME@_oinf_tensor(const @NAME@_oinf* f, const char* name, uint32_t* dtype, uint32_t* rank,
                       uint64_t dims[@NAME@_MAX_RANK], const unsigned char** data, uint64_t* nbytes, char* err,
                       size_t err_size) {
  const unsigned char* h = f->data;
  uint32_t n = oi_u32(h + 21);
  uint64_t pos = oi_u64(h + 45), end = oi_u64(h + 53), data_start = end;
  size_t want = strlen(name);
  for (uint32_t i = 0; i < n; ++i) {
    const char* entry;
    uint32_t len;
    if (oi_string(f, &pos, end, &entry, &len) != 0 || pos + 12 > end) break;
    uint32_t t = oi_u32(h + pos), nd = oi_u32(h + pos + 4), flags = oi_u32(h + pos + 8);
    pos += 12;
    if (nd > @NAME@_MAX_RANK || pos + 8 * (uint64_t)nd + 16 > end) break;
    if (len == want && memcmp(entry, name, want) == 0) {
      *dtype = t;
      *rank = nd;
      for (uint32_t k = 0; k < nd; ++k) dims[k] = oi_u64(h + pos + 8 * k);
      uint64_t nb = oi_u64(h + pos + 8 * nd), off = oi_u64(h + pos + 8 * nd + 8);
      if (!(flags & 1u)) {
        *data = NULL;
        *nbytes = 0;
        return 1;
      }
      if (off % 8 != 0 || off < data_start || off > f->size || nb > f->size - off) {
        snprintf(err, err_size, "tensor '%s': payload outside the data section", name);
        return -1;
      }
      *data = h + off;
      *nbytes = nb;
      return 1;
    }
    pos += 8 * (uint64_t)nd + 16;
  }
  if (n > 0 && pos > end) {
    snprintf(err, err_size, "the tensor table is malformed");
    return -1;
  }
  return 0;
}

static int oi_entry_cmp(const void* a, const void* b) {
  return strcmp(((const @NAME@_oinf_entry*)a)->name, ((const @NAME@_oinf_entry*)b)->name);
}

int @NAME@_oinf_write(const char* path, @NAME@_oinf_entry* entries, size_t count, char* err,
                      size_t err_size) {
  qsort(entries, count, sizeof *entries, oi_entry_cmp);
  uint64_t table = 0, payload = 0;
  for (size_t i = 0; i < count; ++i) {
    table += (4 + strlen(entries[i].name) + 7) / 8 * 8 + 12 + 8 * (uint64_t)entries[i].rank + 16;
    payload += (entries[i].nbytes + 7) / 8 * 8;
  }
  uint64_t data_off = 72 + (table + 7) / 8 * 8, size = data_off + payload;
  unsigned char* buf = (unsigned char*)calloc(1, (size_t)size);
  if (!buf) {
    snprintf(err, err_size, "%s: out of memory", path);
    return @NAME@_ERR_MEMORY;
  }
  memcpy(buf, "OINF\0", 5);
  oi_put32(buf + 5, 1);
  oi_put32(buf + 21, (uint32_t)count);
  oi_put64(buf + 29, 72);
  oi_put64(buf + 37, 72);
  oi_put64(buf + 45, 72);
  oi_put64(buf + 53, data_off);
  oi_put64(buf + 61, size);
  uint64_t pos = 72, cursor = data_off;
  for (size_t i = 0; i < count; ++i) {
    const @NAME@_oinf_entry* e = &entries[i];
    uint32_t len = (uint32_t)strlen(e->name);
    oi_put32(buf + pos, len);
    memcpy(buf + pos + 4, e->name, len);
    pos += (4 + (uint64_t)len + 7) / 8 * 8;
    oi_put32(buf + pos, e->dtype);
    oi_put32(buf + pos + 4, e->rank);
    oi_put32(buf + pos + 8, 1u);
    pos += 12;
    for (uint32_t k = 0; k < e->rank; ++k, pos += 8) oi_put64(buf + pos, e->dims[k]);
    oi_put64(buf + pos, e->nbytes);
    oi_put64(buf + pos + 8, cursor);
    pos += 16;
    if (e->nbytes) memcpy(buf + cursor, e->data, (size_t)e->nbytes);
    cursor += (e->nbytes + 7) / 8 * 8;
  }
  char temp[4096];
  snprintf(temp, sizeof temp, "%s.tmp", path);
  FILE* f = fopen(temp, "wb");
  int ok = f && fwrite(buf, 1, (size_t)size, f) == (size_t)size;
  if (f && fclose(f) != 0) ok = 0;
  free(buf);
  if (!ok || rename(temp, path) != 0) {
    remove(temp);
    snprintf(err, err_size, "%s: cannot write", path);
    return @NAME@_ERR_IO;
  }
  return @NAME@_OK;
}
)C";

const char* const kMainC =
    R"C(/* Generated by OpenInfer's C emitter: a driver taking `openinfer run`'s --model, --steps,
 * --input NAME=FILE[:TENSOR] ({step} is the step number), --fetch, --save and --max-table-bytes
 * options, and --keep-going: a failed step prints its error and the next step runs (a failed
 * step leaves persistent memory as it was; the exit status is 1 at the end). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "@NAME@.h"


static int fail(const char* message) {
  fprintf(stderr, "error: %s\n", message);
  return 1;
}

/* An f16 (IEEE binary16) as a double, exactly. */
static double half_value(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v = exp == 0x1f ? (man ? NAN : INFINITY)
             : exp == 0  ? ldexp((double)man, -24)
                         : ldexp((double)(man | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

/* oinf.md's dtype codes, as `openinfer run` prints them. */
static const char* dtype_name(uint32_t code) {
  static const char* const names[] = {"?",     "i8",     "i16",    "i32",  "i64", "u8", "u16",
                                      "u32",   "u64",    "f16",    "f32",  "f64", "bool",
                                      "bitset", "string", "ndarray", "bf16", "f8",  "i4",
                                      "i2",    "i1",     "u4",     "u2",   "u1",  "t2", "t1"};
  return code < sizeof names / sizeof names[0] ? names[code] : "?";
}

static void print_value(const char* name, const @NAME@_var_info* v, uint32_t rank,
                        const uint64_t* dims, const void* data) {
  printf("  %s: %s [", name, dtype_name(v->dtype));
  for (uint32_t k = 0; k < rank; ++k)
    printf("%s%llu", k ? ", " : "", (unsigned long long)dims[k]);
  printf("] = {");
  size_t n = 1;
  for (uint32_t k = 0; k < rank; ++k) n *= (size_t)dims[k];
  for (size_t i = 0; i < n && i < 8; ++i) {
    fputs(i ? ", " : " ", stdout);
    if (v->dtype == 10) printf("%.9g", (double)((const float*)data)[i]);
    else if (v->dtype == 11) printf("%.17g", ((const double*)data)[i]);
    else if (v->dtype == 3) printf("%ld", (long)((const int32_t*)data)[i]);
    else if (v->dtype == 4) printf("%lld", (long long)((const int64_t*)data)[i]);
    else if (v->dtype == 12) printf("%s", ((const uint8_t*)data)[i] ? "true" : "false");
    else if (v->dtype == 9) printf("%.9g", half_value(((const uint16_t*)data)[i]));
    else if (v->dtype == 1) printf("%d", (int)((const int8_t*)data)[i]);
    else if (v->dtype == 2) printf("%d", (int)((const int16_t*)data)[i]);
    else if (v->dtype == 5) printf("%u", (unsigned)((const uint8_t*)data)[i]);
    else if (v->dtype == 6) printf("%u", (unsigned)((const uint16_t*)data)[i]);
    else if (v->dtype == 7) printf("%lu", (unsigned long)((const uint32_t*)data)[i]);
    else if (v->dtype == 8) printf("%llu", (unsigned long long)((const uint64_t*)data)[i]);
    else if (v->dtype >= 18 && v->dtype <= 23) {
      /* packed, LSB first: i4 i2 i1 u4 u2 u1 */
      const unsigned w = (v->dtype == 18 || v->dtype == 21) ? 4u : (v->dtype == 19 || v->dtype == 22) ? 2u : 1u;
      const unsigned raw = (((const uint8_t*)data)[i * w / 8] >> (i * w % 8)) & ((1u << w) - 1u);
      printf("%d", v->dtype <= 20 && (raw >> (w - 1)) ? (int)raw - (1 << w) : (int)raw);
    }
    else if (v->dtype == 16) {
      uint32_t bits = (uint32_t)((const uint16_t*)data)[i] << 16;
      float f;
      memcpy(&f, &bits, 4);
      printf("%.9g", (double)f);
    }
  }
  printf("%s }\n", n > 8 ? ", ..." : "");
}

int main(int argc, char** argv) {
  const char* model = NULL;
  const char* save = NULL;
  /* Room for every option (static: still reachable at exit, so no leak is reported). */
  static const char** inputs;
  static const char* const* fetch;
  static const char** fetch_args;
  inputs = (const char**)calloc((size_t)argc + 1u, sizeof *inputs);
  fetch_args = (const char**)calloc((size_t)argc + 1u, sizeof *fetch_args);
  if (!inputs || !fetch_args) return fprintf(stderr, "error: out of memory\n"), 1;
  fetch = fetch_args;
  size_t n_inputs = 0, n_fetch = 0;
  long steps = 1;
  int quiet = 0, keep_going = 0, failed_steps = 0;
  unsigned long long max_table_bytes = 0;
  char err[512];
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(a, "--model") == 0 && has_value) model = argv[++i];
    else if (strcmp(a, "--steps") == 0 && has_value) steps = strtol(argv[++i], NULL, 10);
    else if (strcmp(a, "--input") == 0 && has_value) inputs[n_inputs++] = argv[++i];
    else if (strcmp(a, "--fetch") == 0 && has_value) fetch_args[n_fetch++] = argv[++i];
    else if (strcmp(a, "--save") == 0 && has_value) save = argv[++i];
    else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) quiet = 1;
    else if (strcmp(a, "--keep-going") == 0) keep_going = 1;
    else if (strcmp(a, "--max-table-bytes") == 0 && has_value) {
      /* a number of bytes, 0 (no limit) or more: digits only, no sign, no overflow */
      const char* v = argv[++i];
      char* end = NULL;
      errno = 0;
      max_table_bytes = strtoull(v, &end, 10);
      if (!*v || *end || v[strspn(v, "0123456789")] || errno == ERANGE) {
        fprintf(stderr, "error: --max-table-bytes takes a number of bytes, 0 or more (got '%s')\n", v);
        return 2;
      }
    }
    else {
      fprintf(stderr, "usage: %s [--model M.oinf] [--steps N] [--input NAME=FILE[:TENSOR]]... "
              "[--fetch NAME]... [--save OUT.oinf] [--max-table-bytes N] [--keep-going] [-q]\n",
              argv[0]);
      return 2;
    }
  }
  if (!model && @NAME@_needs_model()) return fprintf(stderr, "error: missing --model\n"), 2;
  if (steps < 1) return fprintf(stderr, "error: --steps must be at least 1\n"), 2;
  if (n_fetch == 0) {
    size_t count = 0;
    const char* const* outs = @NAME@_outputs(&count);
    fetch = outs;
    n_fetch = count;
  }
  for (size_t i = 0; i < n_fetch; ++i)
    if (!@NAME@_var(fetch[i])) {
      snprintf(err, sizeof err,
               "--fetch %s: no such variable (a temporary is kept for fetching only when "
               "synthesized with --fetchable %s)",
               fetch[i], fetch[i]);
      return fail(err);
    }
  @NAME@_state* s = NULL;
  if (@NAME@_create(model, &s, err, sizeof err) != @NAME@_OK) return fail(err);
  @NAME@_set_max_table_bytes(s, (uint64_t)max_table_bytes);
  /* Saved values: every fetched name per step (NAME.stepK) and the last (NAME). */
  size_t n_saved = 0, cap = (size_t)steps * n_fetch + n_fetch;
  @NAME@_oinf_entry* saved = (@NAME@_oinf_entry*)calloc(cap ? cap : 1, sizeof *saved);
  char** owned = (char**)calloc(cap ? 3 * cap : 1, sizeof *owned);
  size_t n_owned = 0;
  int rc = 0;
  for (long step = 0; step < steps && rc == 0; ++step) {
    for (size_t i = 0; i < n_inputs && rc == 0; ++i) {
      char spec[1024], file[1024], tensor[256];
      snprintf(spec, sizeof spec, "%s", inputs[i]);
      char* eq = strchr(spec, '=');
      if (!eq) { rc = fail("--input needs NAME=FILE"); break; }
      *eq = '\0';
      const char* rest = eq + 1;
      const char* colon = strrchr(rest, ':');
      snprintf(file, sizeof file, "%.*s", colon ? (int)(colon - rest) : (int)strlen(rest), rest);
      const char* pattern = colon ? colon + 1 : spec;
      /* {step} becomes the step number */
      tensor[0] = '\0';
      for (const char* p = pattern; *p && strlen(tensor) + 24 < sizeof tensor;) {
        if (strncmp(p, "{step}", 6) == 0) {
          snprintf(tensor + strlen(tensor), sizeof tensor - strlen(tensor), "%ld", step);
          p += 6;
        } else {
          size_t l = strlen(tensor);
          tensor[l] = *p++;
          tensor[l + 1] = '\0';
        }
      }
      @NAME@_oinf f;
      if (@NAME@_oinf_read(file, &f, err, sizeof err) != @NAME@_OK) { rc = fail(err); break; }
      uint32_t dtype = 0, rank = 0;
      uint64_t dims[@NAME@_MAX_RANK];
      const unsigned char* data = NULL;
      uint64_t nbytes = 0;
      int found = @NAME@_oinf_tensor(&f, tensor, &dtype, &rank, dims, &data, &nbytes, err, sizeof err);
      if (found < 0) rc = fail(err);
      else if (found > 0) {
        const @NAME@_var_info* v = @NAME@_var(spec);
        if (!v || v->dtype != dtype) {
          fprintf(stderr, "error: --input %s: tensor '%s' of %s has another dtype\n", spec, tensor, file);
          rc = 1;
        } else if (@NAME@_insert(s, spec, data, (size_t)nbytes) != @NAME@_OK) {
          rc = fail(@NAME@_error(s));
        }
      }
      @NAME@_oinf_free(&f);
    }
    if (rc) break;
    if (@NAME@_step(s) != @NAME@_OK) {
      fail(@NAME@_error(s));
      ++failed_steps;
      if (!keep_going) { rc = 1; break; }
    }
    if (!quiet) printf("step %ld:\n", step);
    for (size_t i = 0; i < n_fetch; ++i) {
      const void* data = NULL;
      size_t bytes = 0;
      const @NAME@_var_info* v = @NAME@_var(fetch[i]);
      uint32_t rank = 0;
      uint64_t dims[@NAME@_MAX_RANK];
      if (@NAME@_fetch(s, fetch[i], &data, &bytes) != @NAME@_OK ||
          @NAME@_fetch_dims(s, fetch[i], &rank, dims) != @NAME@_OK) { rc = fail(@NAME@_error(s)); break; }
      if (!quiet) print_value(fetch[i], v, rank, dims, data);
      if (!save) continue;
      /* a table's shape changes from step to step: each saved entry keeps its own dims */
      void* copy = malloc(bytes ? bytes : 1);
      char* name = (char*)malloc(strlen(fetch[i]) + 32);
      uint64_t* kept = (uint64_t*)malloc(sizeof dims);
      if (!copy || !name || !kept) { free(copy); free(name); free(kept); rc = fail("out of memory"); break; }
      memcpy(copy, data, bytes);
      memcpy(kept, dims, sizeof dims);
      if (steps > 1) sprintf(name, "%s.step%ld", fetch[i], step);
      else strcpy(name, fetch[i]);
      owned[n_owned++] = (char*)copy;
      owned[n_owned++] = name;
      owned[n_owned++] = (char*)kept;
      saved[n_saved++] = (@NAME@_oinf_entry){name, v->dtype, rank, kept, copy, bytes};
      if (steps > 1 && step == steps - 1)
        saved[n_saved++] = (@NAME@_oinf_entry){fetch[i], v->dtype, rank, kept, copy, bytes};
    }
  }
  if (rc == 0 && save && @NAME@_oinf_write(save, saved, n_saved, err, sizeof err) != @NAME@_OK)
    rc = fail(err);
  if (rc == 0 && failed_steps) rc = 1; /* --keep-going: the steps after a failure still ran */
  for (size_t i = 0; i < n_owned; ++i) free(owned[i]);
  free(owned);
  free(saved);
  @NAME@_destroy(s);
  return rc;
}
)C";

}  // namespace oi::c_emitter
