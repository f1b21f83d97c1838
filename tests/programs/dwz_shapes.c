/* A program of two units sharing types and an inline function, for dwz (test_dwz.py). */
#include <stdio.h>
#include "dwz_shapes.h"

static struct shape g_shape = { "box", { 1, 2 }, { 3, 4 }, 1.5 };

static int report(const struct shape *s)
{
    struct point where = s->corner;
    int a = area_of(s);  /* @bp:dwz_report */
    printf("%s at %d,%d: %d\n", s->name, where.x, where.y, a);
    return a;
}

int main(void)
{
    shape_t local = g_shape;
    grow(&local, 2);
    int a = shape_area(&local);
    return report(&local) == a ? 0 : 1;
}
