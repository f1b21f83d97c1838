/* The second file of symbol_search.c: a static with the same name as the main file's. */
typedef unsigned long counter_t;
typedef char part_char_t;

counter_t part_counter = 7;
static part_char_t __attribute__((used)) part_flag = 'x';
static double ratio = 2.5;

static int add(int a, int b) { return a - b; }

int part_total(int count)
{
  return add(count, 1) + (int) ratio + part_flag;
}
