/* A loop whose dprintf prints C strings: short ones, an empty one, a null pointer, one of
 * 199 characters (the longest copied with the record), one of 250 (printed at the trap),
 * bytes that are not UTF-8, and a pointer that becomes unreadable at the 51st pass. */
#include <stdio.h>
#include <string.h>

static char long_text[251], edge_text[200];
static volatile long total;

int main(void)
{
    memset(long_text, 'L', 250);
    memset(edge_text, 'E', 199);
    const char *names[] = {"alpha", "", NULL, edge_text, long_text, "caf\xe9 \xff", "beta gamma"};
    for (int i = 0; i < 700; i++) {
        const char *name = names[i % 7];
        const char *other = names[(i + 1) % 7];
        const char *unreadable = i < 50 ? names[0] : (const char *)16;
        total += i; /* @bp:log */
        (void)name;
        (void)other;
        (void)unreadable;
    }
    printf("total %ld\n", total); /* @bp:done */
    return 0;
}
