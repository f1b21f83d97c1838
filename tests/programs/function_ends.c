/* Addresses just past a function's end (gcc -O2): the padding after `die`, and the return
   address of `last`, whose noreturn call is its last instruction, so that the pc after it
   is the first byte of the padding before `after`. gdb names neither by a symbol. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa, noreturn)) void die(int code) {
    exit(code); /* @bp:die */
}

__attribute__((noipa)) void last(int a) {
    if (a)
        die(a);
    abort();
}

__attribute__((noipa)) int after(int a) {
    return a * 3;
}

int main(int argc, char **argv) {
    (void)argv;
    printf("%d\n", after(argc));
    last(argc);
}
