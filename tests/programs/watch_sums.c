/* Watches on expressions that are no lvalue: gdb watches what they read. */
int a, b;
struct {
    int d : 3;
    int f : 4;
    int g : 5;
} q;
int arr[4];
int *p = &a;

int main(void) {
    a = 1; /* @bp:first */
    b = 2;
    a = 3;
    b = 0;
    b = 1;
    q.d = 1;
    q.f = 2;
    q.g = 1;
    q.g = 0;
    arr[1] = 5;
    arr[2] = 7;
    arr[1] = 6;
    return 0;
}
