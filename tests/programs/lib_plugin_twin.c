/* lib_plugin.c under another name: the same code, another source file. */
int plugin_work(int x) {
    int doubled = x * 2; /* @bp:plugin */
    return doubled + 2;
}
