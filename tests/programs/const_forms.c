/* DWARF constants in 1-, 2-, 4- and 8-byte forms: array bounds at the edges of those
   widths, enumerators past 127/32767/2^31 and negative, bitfields beyond bit 127. */
#include <stdio.h>
#include <string.h>

enum small { S_NEG = -3, S_A = 200, S_B = 40000 };
enum big { B_MAX = 0xffffffffu, B_ONE = 1 };
enum low { L_MIN = -129, L_MAX = 127 };

struct bits {
    char pad[16];
    unsigned int lo : 3;
    unsigned int hi : 5;
    int sgn : 7;
    unsigned long long wide : 40;
};

struct flex {
    int n;
    char data[];
};

static char buf65536[65536];
static char buf65535[65535];
static short buf32768[32768];
char (*huge)[2147483648UL]; /* a type of 2^31 elements, nothing allocated */

int main(void) {
    char path[256];
    char a1[1], a127[127], a128[128], a255[255];
    short s32767[32767];
    struct bits b;
    struct flex *f = NULL;
    enum small e1 = S_A, e2 = S_B, e3 = S_NEG;
    enum big eb = B_MAX;
    enum low el = L_MIN;
    memset(&b, 0, sizeof b);
    b.lo = 5;
    b.hi = 17;
    b.sgn = -9;
    b.wide = 0xabcdef1234ULL;
    memset(path, 0, sizeof path);
    strcpy(path, "/etc/hosts");
    memset(a127, 'y', sizeof a127);
    memset(a128, 0, sizeof a128);
    memset(a255, 'z', sizeof a255);
    a1[0] = 'x';
    memset(s32767, 0, sizeof s32767);
    s32767[0] = 1;
    buf65536[0] = 'q';
    buf65535[0] = 'r';
    buf32768[1] = 7;
    printf("%s %d\n", path, e1 + e2 + e3 + (int)eb + el + (f != NULL)); /* @bp:print */
    return 0;
}
