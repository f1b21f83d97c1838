/* Lines of straight-line code (no jump, no call): a `next` runs each to its end at once. */
volatile int a = 1, b = 2, c = 3;

int main(void) {
    int x = a * 3 + b * 5 - c * 7 + (a ^ b) - (b | c); /* @bp:straight */
    int y = x * 11 + a - b + (c << 2) - (x >> 1); /* @bp:second */
    return y == 12345; /* @bp:last */
}
