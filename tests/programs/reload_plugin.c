/* Loads each library named on the command line with dlopen, calls its plugin_work and
   unloads it before the next: the next is likely mapped where the last one was. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        void *library = dlopen(argv[i], RTLD_NOW);
        if (!library) { fprintf(stderr, "%s\n", dlerror()); return 3; }
        int (*plugin_work)(int) = (int (*)(int))dlsym(library, "plugin_work");
        printf("plugin %d said %d\n", i, plugin_work(20)); /* @bp:call */
        dlclose(library);
    }
    return 0;
}
