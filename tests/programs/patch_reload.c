/* Loads the library built from lib_plugin.c, calls it, unloads it, and does it again
 * (test_patched_breakpoints.py: a jump patch in a library that goes and comes back). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: patch_reload LIBRARY\n"); return 2; }
    long total = 0;
    for (int round = 0; round < 2; round++) {
        void *library = dlopen(argv[1], RTLD_NOW);
        if (!library) { fprintf(stderr, "%s\n", dlerror()); return 3; }
        int (*plugin_work)(int) = (int (*)(int))dlsym(library, "plugin_work");
        for (int x = 0; x < 50; x++)
            total += plugin_work(round * 1000 + x);
        dlclose(library); /* @bp:closed */
    }
    printf("total %ld\n", total);
    return 0;
}
