/* Arm semihosting calls (semihost.h). */
#include "semihost.h"

static int call(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static size_t length(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

int sh_open(const char* path, const char* mode) {
  /* ISO C modes as the specification numbers them: 1 is "rb", 5 is "wb". */
  const uint32_t args[3] = {(uint32_t)(uintptr_t)path, mode[0] == 'w' ? 5u : 1u,
                            (uint32_t)length(path)};
  return call(0x01, args);
}

int sh_close(int fd) {
  const uint32_t args[1] = {(uint32_t)fd};
  return call(0x02, args);
}

int sh_write(int fd, const void* buf, size_t n) {
  const uint32_t args[3] = {(uint32_t)fd, (uint32_t)(uintptr_t)buf, (uint32_t)n};
  return call(0x05, args) == 0 ? 0 : -1; /* returns the bytes NOT written */
}

int sh_read(int fd, void* buf, size_t n) {
  const uint32_t args[3] = {(uint32_t)fd, (uint32_t)(uintptr_t)buf, (uint32_t)n};
  return call(0x06, args) == 0 ? 0 : -1;
}

int sh_cmdline(char* buf, size_t size) {
  uint32_t args[2] = {(uint32_t)(uintptr_t)buf, (uint32_t)size};
  return call(0x15, args) == 0 ? 0 : -1;
}

void sh_puts(const char* s) {
  call(0x04, s);
}

void sh_exit(int code) {
  /* ADP_Stopped_ApplicationExit with the exit code */
  const uint32_t args[2] = {0x20026u, (uint32_t)code};
  call(0x20, args);
  for (;;) {
  }
}
