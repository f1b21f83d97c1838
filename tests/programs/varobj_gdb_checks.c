/* Var objects as gdb's own testsuite checks them: members of unnamed structs and unions
   reached through pointers, pointers that cannot be followed, frozen var objects. */
#include <stdlib.h>

struct point {
    int x;
    int y;
    short marks[3];
};

struct shape {
    int kind;
    struct {
        int width;
        char *label;
        union {
            long area;
            struct {
                const char **names;
                struct point ***corners;
            };
        };
    };
};

struct pair {
    int left;
    struct {
        int inner;
        int outer;
    } nested;
};

static struct shape *one;
struct shape **handle = &one; /* a global: the same address under gdb and under us */

static void touch(struct pair *p, int base)
{
    p->left = base; /* @bp:touch */
    p->nested.inner = base + 1;
    p->nested.outer = base + 2;
}

int main(void)
{
    one = malloc(sizeof *one);
    struct pair counts = {0, {0, 0}};
    double base = 0.5; /* the name of touch's int argument: another type here */
    one->kind = 1;
    one->width = 2;
    one->label = (char *) 3;
    one->names = (const char **) 4;
    one->corners = (struct point ***) 8;
    touch(&counts, 1); /* @bp:first */
    touch(&counts, 5); /* @bp:second */
    touch(&counts, 9); /* @bp:third */
    free(one);
    return base > 1; /* @bp:end */
}
