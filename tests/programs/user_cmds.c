#include <string.h>
#include <stdio.h>

static const char *greeting = "hi";
static char buffer[16] = "hello";
static int total;

static int leaf(const char *msg, int n)
{
    total += n + (int) strlen(msg); /* @bp:leaf */
    return total;
}

static int middle(const char *msg, int n)
{
    return leaf(msg, n) + 1;
}

int main(void)
{
    const char *words[] = {"one", "hi", "three", "hi"};
    int i;
    for (i = 0; i < 4; i++)
        middle(words[i], i); /* @bp:loop */
    printf("%s %s %d\n", greeting, buffer, total);
    return 0;
}
