/* Watchpoints wider than one debug register (a struct, an array, an unaligned int), and
   on bit-fields, whose bytes hold their neighbours too. */
struct point {
    long x, y;
};
struct __attribute__((packed)) record {
    char tag;
    int count; /* at offset 1: unaligned */
};

struct flags {
    unsigned a : 1;
    unsigned b : 3;
    int c : 5;
};

struct point where;
struct flags flags;
int triple[3];
struct record rec;
char wide[100];

void touch(int i) {
    where.y = i; /* @bp:touch */
    triple[2] = i;
    rec.count = i;
    wide[50] = (char)i;
    flags.a = i & 1;
    flags.b = (unsigned)i;
    flags.c = -i;
}

int main(void) {
    for (int i = 1; i < 4; i++)
        touch(i);
    return 0;
}
