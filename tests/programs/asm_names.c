/* A C function with an assembler name and a public alias, as glibc's hidden `__GI_`
   names: gdb names its frames by the assembler name (the DWARF's DW_AT_linkage_name),
   not by the C name nor by the alias the call went through. */
#include <stdio.h>

int announce(int code) __asm__("internal_announce");

int announce(int code) {
    printf("code %d\n", code); /* @bp:announce */
    return code + 1;
}

extern int public_announce(int code) __attribute__((alias("internal_announce")));

int main(void) {
    return public_announce(4) == 5 ? 0 : 1;
}
