/* Entry values that need main's caller. gdb asks for a frame's caller with get_prev_frame,
   which stops at main (`backtrace past-main off`): main's parameters have no NAME@entry,
   nor has anything computed from them at a call site, even where the caller's call site
   is known. The program has its own entry point so that main's caller has call sites
   without libc's debug info. Built with -O2 -nostartfiles. */
#include <stdlib.h>

typedef int (*unary)(int);

__attribute__((noipa)) int twice(int a) {
    return a * 2; /* @bp:twice */
}

__attribute__((noipa)) int opaque(int a) {
    return a;
}

/* The callee is loaded into rbx, callee-saved, so that the call site's DW_AT_call_target
   is DW_OP_breg3: the caller's frame still knows it after the call. */
__attribute__((noipa)) int call_through(unary *table, int index, int n) {
    return table[index](opaque(n) + 7) + 3;
}

static unary table[1] = {twice};

int main(int argc, char **argv) {
    (void)argv;
    return call_through(table, argc - 1, 4) == 25 ? 0 : 1;
}

__attribute__((noipa, noreturn)) void finish(int code, int argc, char **argv) {
    exit(code + (argc > 0 && argv[0] ? 0 : 1));
}

/* main's caller: argc and argv, kept in callee-saved registers across the call, so that
   its call site gives main's entry values. */
__attribute__((noipa, noreturn)) void start_main(int argc, char **argv) {
    finish(main(argc, argv), argc, argv);
}

/* The entry point, as libc's _start: the outermost frame (its return address undefined). */
__attribute__((naked, noreturn)) void _start(void) {
    __asm__(".cfi_undefined rip\n\txor %ebp, %ebp\n\tmov (%rsp), %edi\n\tlea 8(%rsp), %rsi\n\tand $-16, %rsp\n\t"
            "call start_main\n\thlt");
}
