/* Members gdb completes in an expression (condition N EXPR, print, ptype, whatis, x/FMT,
   display/FMT): a struct's fields, a bit field, an array, a function pointer, a nested
   struct, an anonymous struct (not opened) and union, a pointer to the struct, a typedef. */
struct inner {
    int deep;
};

struct s {
    int a_field;
    int b_field : 3;
    char name[8];
    int (*fn)(int);
    struct inner in;
    struct {
        int anon_x;
    };
    union {
        int u1;
        float u2;
    } un;
    struct s *next;
};

struct s values[3];
struct s *ptr = &values[0];
typedef struct s S;
S tv;

int main(void) {
    values[0].a_field = 1; /* @bp:set */
    return values[0].a_field;
}
