/* MI adapter tests: a call chain, a loop, a struct, an array, strings (UTF-8 included). */
#include <stdio.h>

struct point {
    int x;
    int y;
    const char *name;
};

int counter = 5;

int add(int a, int b) {
    int sum = a + b; /* @bp:add_body */
    return sum; /* @bp:add_return */
}

void move(struct point *p, int dx, int dy) {
    p->x = add(p->x, dx); /* @bp:move_first */
    p->y = add(p->y, dy);
}

int main(int argc, char **argv) {
    struct point pt = { 1, 2, "origin" }; /* @bp:main_first */
    struct point *pp = &pt;
    int arr[4] = { 10, 20, 30, 40 };
    int total = 0;
    const char *msg = "say \"hi\"\n\tgr\xc3\xbc\xc3\x9f";
    for (int i = 0; i < 4; i++) {
        total = add(total, arr[i]); /* @bp:loop */
    }
    move(pp, 3, 4); /* @bp:after_loop */
    printf("total=%d x=%d y=%d name=%s\n", total, pp->x, pp->y, pp->name); /* @bp:print */
    puts(msg);
    counter++; /* @bp:end */
    return argc > 1 ? 3 : 0;
}
