/* Less common shapes: anonymous members, flexible arrays, complex, long double, wide chars. */
#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <uchar.h>

struct tagged {
    int kind;
    union { int i; float f; };
    struct { short lo, hi; };
};
struct flex { int n; int data[]; };
struct with_arrays { char names[2][4]; int *ptrs[2]; int (*fns[2])(int); bool bits[3]; };
typedef int (*handler_t)(int);
typedef char row_t[3];

int twice(int x) { return 2 * x; }
int negate(int x) { return -x; }

struct tagged gtag = {2, {.i = 7}, {-1, 1}};
struct with_arrays garr = {{"ab", "cde"}, {0, 0}, {twice, negate}, {1, 0, 1}};
handler_t gh = twice;
row_t grows[2] = {"xy", "z"};
long double gld = 2.5L;
double complex gz = 1.5 + 2.0 * I;
float complex gzf = -1.0f;
wchar_t gwc = L'W';
char16_t gc16 = u'q';
char32_t gc32 = U'Z';
wchar_t gwide[] = L"wide";
wchar_t *gwidep = gwide;
unsigned char gbytes[5] = {0, 1, 127, 128, 255};
int (*gparr)[3];
int gmat[3] = {4, 5, 6};
volatile unsigned long gvol = 77;
struct flex *gflex;
const char *gnullstr;
char gnl[] = "line1\nline2";
signed char gsc[3] = {-1, 65, 0};

int main(void) {
    gflex = malloc(sizeof(struct flex) + 3 * sizeof(int));
    gflex->n = 3; gflex->data[0] = 10; gflex->data[1] = 20; gflex->data[2] = 30;
    garr.ptrs[1] = &gmat[1];
    gparr = &gmat;
    int result = gh(gtag.i) + garr.fns[1](3); /* @bp:more */
    free(gflex);
    return result == 0;
}
