/* The second unit of dwz_shapes (see dwz_shapes.h). */
#include "dwz_shapes.h"

int shape_area(const shape_t *s)
{
    int total = area_of(s);  /* @bp:dwz_area */
    return total;
}

void grow(struct shape *s, int by)
{
    struct point delta = { by, by };
    s->size.x += delta.x;  /* @bp:dwz_grow */
    s->size.y += delta.y;
}
