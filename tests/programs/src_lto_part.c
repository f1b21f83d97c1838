/* The other unit of src_lto.c: lto_weigh is inlined into main across units; lto_helper
   stays out of line. */
static int lto_scale(int v) { return v * 3 + 1; }

__attribute__((noinline)) int lto_helper(int x) {
    int y = lto_scale(x);
    return y + x; /* @bp:lto_helper_body */
}

int lto_weigh(int x) {
    return lto_scale(x + 1) * 2; /* @bp:lto_weigh_body */
}
