/* Arm semihosting (the "Semihosting for AArch32 and AArch64" specification) for the tests/mcu
 * harness under QEMU (-semihosting-config enable=on,target=native): the few host services the
 * driver uses, called with BKPT 0xAB. No libc. */
#ifndef OI_SEMIHOST_H
#define OI_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

/* A host file: "rb" or "wb"; -1 when it cannot be opened. */
int sh_open(const char* path, const char* mode);
int sh_close(int fd);
/* Reads or writes exactly `n` bytes: 0, or -1. */
int sh_read(int fd, void* buf, size_t n);
int sh_write(int fd, const void* buf, size_t n);
/* The program's command line as QEMU gives it (-semihosting-config arg=...): 0, or -1. */
int sh_cmdline(char* buf, size_t size);
/* A NUL-terminated string on the debug console (QEMU's stdout). */
void sh_puts(const char* s);
/* Ends the program with an exit code (SYS_EXIT_EXTENDED); never returns. */
__attribute__((noreturn)) void sh_exit(int code);

#endif
