/* Reset and fault handling of the tests/mcu boards (Cortex-M4F, M7, M55 under QEMU): the vector
 * table, .data copied from flash, .bss zeroed, the FPU enabled, main called and its result
 * returned to the host through semihosting. A fault prints its registers and exits with 99.
 * The SysTick handler counts wraps of the 24-bit counter (instructions.c). */
#include <stdint.h>

#include "semihost.h"

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern uint32_t __tdata_load, __tls_base, __tdata_end, __tbss_start, __tls_end;
int main(void);
void oi_systick_handler(void);
void _set_tls(void* tls); /* picolibc: the thread pointer (errno is thread-local there) */

static void copy(uint32_t* to, const uint32_t* end, const uint32_t* from) {
  while (to < end) *to++ = *from++;
}

static void zero(uint32_t* to, const uint32_t* end) {
  while (to < end) *to++ = 0;
}

__attribute__((noreturn)) void oi_reset(void) {
  copy(&__data_start, &__data_end, &__data_load);
  copy(&__tls_base, &__tdata_end, &__tdata_load);
  zero(&__tbss_start, &__tls_end);
  zero(&__bss_start, &__bss_end);
  _set_tls(&__tls_base);
#if defined(__ARM_FP)
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10 and CP11 full access */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  sh_exit(main());
}

static void put_hex(const char* name, uint32_t v) {
  char text[24];
  int n = 0;
  while (*name) text[n++] = *name++;
  for (int i = 7; i >= 0; --i) text[n++] = "0123456789abcdef"[(v >> (4 * i)) & 0xFu];
  text[n++] = ' ';
  text[n] = '\0';
  sh_puts(text);
}

void oi_fault(void) {
  uint32_t* frame;
  __asm__ volatile("mrs %0, msp" : "=r"(frame));
  sh_puts("fault: ");
  put_hex("pc=", frame[6]);
  put_hex("lr=", frame[5]);
  put_hex("cfsr=", *(volatile uint32_t*)0xE000ED28u);
  put_hex("bfar=", *(volatile uint32_t*)0xE000ED38u);
  sh_puts("\n");
  sh_exit(99);
}

__attribute__((section(".vectors"), used)) void (*const oi_vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&__stack_top,
    oi_reset,
    oi_fault, /* NMI */
    oi_fault, /* HardFault */
    oi_fault, /* MemManage */
    oi_fault, /* BusFault */
    oi_fault, /* UsageFault */
    oi_fault, /* SecureFault (ARMv8-M) */
    0,
    0,
    0,
    oi_fault, /* SVCall */
    oi_fault, /* DebugMonitor */
    0,
    oi_fault, /* PendSV */
    oi_systick_handler,
};
