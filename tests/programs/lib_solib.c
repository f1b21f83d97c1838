/* A shared library with debug info of its own, linked at start-up by solib_main.c:
   nosharedlibrary drops its symbols while it stays mapped, sharedlibrary reads them again. */
int solib_counter;

int solib_step(int x) {
    solib_counter += x; /* @bp:solib_step */
    return solib_counter * 2;
}
