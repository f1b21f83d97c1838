/* Frames, arguments, locals and return values for the aarch64 tests: cross-compiled with
   aarch64-linux-gnu-gcc and run under qemu-user's gdb stub (tests/support/qemu.py). */

struct point { long x; long y; };
struct quad { float a, b, c, d; }; /* a homogeneous float aggregate: returned in s0-s3 */

volatile int sink;

__attribute__((noinline)) int leaf(int x, int y) {
    int z = x * y + 3; /* @bp:leaf */
    sink = z;
    return z;
}

__attribute__((noinline)) struct point make_point(long x, long y) {
    struct point p = { x, y };
    sink = (int)x;
    return p;
}

__attribute__((noinline)) struct quad make_quad(float base) {
    struct quad q = { base, base * 2, base * 3, base * 4 };
    sink = (int)base;
    return q;
}

__attribute__((noinline)) int middle(int n, const char *label) {
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += leaf(i, n);
    return acc + label[0];
}

__attribute__((noinline)) int recurse(int depth) {
    if (depth == 0)
        return leaf(depth, 7) + sink; /* no tail call: each frame is a real one */
    return recurse(depth - 1) * 2 + sink;
}

int main(void) {
    struct point p = make_point(3, 4);
    struct quad q = make_quad(1.5f);
    sink = middle(2, "alice") + recurse(3) + (int)p.x + (int)q.d;
    return 0;
}
