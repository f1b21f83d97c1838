// Overloads taking pointers, for gdb's `set check type` (an int for a pointer when off).
struct Counter {
    int bump(int *by) { return by ? *by + 1 : 0; }
};

static int pick(int *p) { return p ? 10 : 20; }
static int pick(char c) { return c; }

int main() {
    Counter counter;
    int one = 1;
    return counter.bump(&one) + pick(&one) + pick('a'); // @bp:main
}
