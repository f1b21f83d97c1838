/* A shared library with a thread-local variable, loaded with dlopen by tls_main.c: its
   TLS block is allocated per thread on first use and found through the thread's DTV. */
__thread int dyn_tls_value = -1;

int dyn_tls_set(int v) {
    dyn_tls_value = v;
    return dyn_tls_value;
}
