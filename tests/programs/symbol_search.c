/* gdb's symbol search (`info functions|variables|types`, -symbol-info-*): externals and
   statics of two files, typedefs, records and a static local, with symbol_search_part.c. */
#include <stddef.h>

struct point { int x, y; };
union number { int i; float f; };
enum shade { LIGHT, DARK };
typedef struct point point_t;
typedef int (*combine_fn)(int, int);
typedef unsigned long counter_t;

extern int part_total(int count);
extern counter_t part_counter;

int table[4] = {1, 2, 3, 4};
const char *greeting = "hi";
static double ratio = 0.5;
static struct point origin;
static combine_fn combiner;
static enum shade current_shade = DARK;

static int add(int a, int b) { return a + b; }

long scale(long value, unsigned short factor)
{
  static int calls; /* a function's static: no file-level symbol */
  calls++;
  return value * factor;
}

int main(void)
{
  point_t p = {1, 2};
  union number n = {3};
  combiner = add;
  origin = p;
  int total = combiner(p.x, n.i) + part_total(2) + (int) scale(3, 2); /* @bp:main */
  return total + table[0] + (int) ratio + (greeting != NULL) + (int) part_counter + current_shade + origin.y;
}
