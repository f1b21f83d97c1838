/* A shared library with thread-local variables, linked at start-up by tls_main.c: its
   TLS block is in the static TLS area, at a fixed distance below the thread pointer. */
__thread int lib_tls_value = 7;
__thread char lib_tls_name[8] = "initial";
static __thread long lib_tls_scaled;
int lib_tls_calls; /* a plain global beside them: found from the program's frames too */

int lib_tls_set(int v) {
    lib_tls_value = v;
    lib_tls_calls++;
    lib_tls_scaled = v * 10L;
    lib_tls_name[0] = (char)('a' + v % 26);
    return lib_tls_value + (int)lib_tls_scaled; /* @bp:lib_tls_set */
}
