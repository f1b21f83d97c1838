// Two overloads of one name: a breakpoint on `pick` has a location in each, and a
// condition may name a parameter only one of them has (test_break_conditions.py).
static volatile int sink;

int pick(int count) {
    sink = count;
    return count + 1;
}

double pick(double ratio) {
    sink = static_cast<int>(ratio);
    return ratio * 2;
}

int main() {
    pick(3);
    pick(2.5);
    pick(4);
    return 0; /* @bp:end */
}
