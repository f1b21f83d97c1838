/* A shared library loaded at run time by dlopen_main.c. */
int plugin_work(int x) {
    int doubled = x * 2; /* @bp:plugin */
    return doubled + 2;
}
