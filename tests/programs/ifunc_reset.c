/* strlen (an ifunc of libc) called, then a library loaded: gdb sets its breakpoints anew
   at the load, and an ifunc's resolver place moves to the function it resolved to. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    size_t n = strlen(argv[0]);
    void *lib = dlopen("libm.so.6", RTLD_NOW);
    n += strlen(argv[0]); /* @bp:after */
    printf("%zu %d\n", n, lib != NULL);
    return 0;
}
