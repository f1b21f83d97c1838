/* Loads the library built from lib_plugin.c with dlopen and calls into it. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: dlopen_main LIBRARY\n"); return 2; }
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 3; }
    int (*plugin_work)(int) = (int (*)(int))dlsym(library, "plugin_work"); /* @bp:loaded */
    int result = plugin_work(20);
    printf("plugin said %d\n", result);
    dlclose(library);
    return 0;
}
