/* Variables of many kinds, for comparing formatted values with gdb. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct point { int x; int y; };
struct node { int value; struct node *next; };
union number { int i; float f; unsigned char bytes[4]; };
struct flags { unsigned a : 3; signed b : 5; unsigned c : 1; int d; unsigned long e : 40; };
enum color { RED, GREEN = 5, BLUE = -2 };
enum perm { PERM_R = 1, PERM_W = 2, PERM_X = 4 };
typedef int myint;
typedef myint myint2;
typedef struct point point_t;
struct inner { char tag[4]; double weights[2]; };
struct outer { struct inner in; struct point pts[2]; const char *label; int (*fn)(int, int); };

int global_counter = 42;
static int file_static = -7;
const char *greeting = "hello, world";
char escapes[] = "tab\there\n\"q\" \\ \001\377";
char utf8[] = "h\xc3\xa9llo \xe2\x82\xac";
double gdouble = 3.14;
float gfloat = 1.5f;
long long gll = -1234567890123LL;
unsigned long gul = 18446744073709551615UL;
bool gbool = true;
short gshort = -300;
unsigned char guchar = 200;
signed char gschar = -5;
char gchar = 'A';
char zeros[16];
char part[16] = "hi";
int matrix[2][3] = {{1, 2, 3}, {4, 5, 6}};
int big[300];
int same[20] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5};
struct point gpoint = {3, -4};
point_t gpoints[3] = {{1, 2}, {3, 4}, {5, 6}};
union number gnum;
struct flags gflags;
enum color gcolor = GREEN;
enum color gcolor_bad;
enum perm gperm = PERM_R | PERM_X;
enum perm gperm_unknown;
myint2 gmy = 17;
const volatile int gcv = 9;
int *gnull;
void *gvoid;
struct node n3 = {3, NULL}, n2 = {2, &n3}, n1 = {1, &n2};
struct outer gouter;
__thread int tls_var = 1234;
float gfloats[3] = {0.1f, -2.5f, 1e10f};
double gnan, ginf;

int add(int a, int b) { return a + b; }

int shadow(int arg) {
    int x = arg;
    static int calls;
    calls++;
    {
        int x = arg * 10;
        int inner_only = x + 1;
        x += inner_only; /* @bp:shadow */
    }
    return x + calls;
}

int locals(int n, const char *s, struct point p, struct point *pp) {
    int i = n * 2;
    char buf[8] = "abc";
    struct point local_pt = {p.y, p.x};
    int *ip = &i;
    int (*fp)(int, int) = add;
    enum color c = BLUE;
    unsigned u = 0xdeadbeef;
    double d = -0.5;
    long arr[4] = {1, -1, 0, 1 << 20};
    (void)buf; (void)ip; (void)fp; (void)c; (void)u; (void)d; (void)arr;
    return i + (int)strlen(s) + local_pt.x + pp->y; /* @bp:locals */
}

int main(int argc, char **argv) {
    (void)argv;
    big[0] = 1; big[299] = 2;
    gnum.i = 0x3fc00000;
    gflags.a = 5; gflags.b = -3; gflags.c = 1; gflags.d = -100; gflags.e = 0x123456789AUL;
    gcolor_bad = (enum color)3;
    gperm_unknown = (enum perm)(PERM_W | 8);
    gouter.in.tag[0] = 'x'; gouter.in.weights[1] = 2.25;
    gouter.pts[1].y = 9; gouter.label = greeting; gouter.fn = add;
    gnan = 0.0 / 0.0 * -1; ginf = 1.0 / 0.0;
    tls_var += argc;
    struct point p = {10, 20};
    int r = locals(argc, "str", p, &gpoint);
    r += shadow(argc);
    return r == 12345;
}
