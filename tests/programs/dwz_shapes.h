/* Types and an inline function both units of dwz_shapes share: dwz moves their DIEs to
   partial units (with -m, to the common alt file) that the units import. */
#ifndef DWZ_SHAPES_H
#define DWZ_SHAPES_H

struct point {
    int x;
    int y;
};

struct shape {
    const char *name;
    struct point corner;
    struct point size;
    double weight;
};

typedef struct shape shape_t;

static inline __attribute__((always_inline)) int area_of(const struct shape *s)
{
    int wide = s->size.x;  /* @bp:dwz_inline */
    int high = s->size.y;
    return wide * high;
}

int shape_area(const shape_t *s);
void grow(struct shape *s, int by);

#endif
