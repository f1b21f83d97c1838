/* A call with scalar and aggregate arguments, for `print frame-arguments` and `print frame-info`. */
struct pair {
    int x;
    int y;
};

union word {
    int i;
    float f;
};

enum shade { LIGHT, DARK };

static int leaf(void) {
    return 1; /* @bp:leaf */
}

static int takes(int n, double d, struct pair p, union word w, enum shade s) {
    return leaf() + n + (int)d + p.x + w.i + (int)s;
}

int main(void) {
    struct pair p = {3, 4};
    union word w;
    w.i = 7;
    return takes(2, 1.5, p, w, DARK) == 0;
}
