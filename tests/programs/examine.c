/* The gdb `x` command's formats and units on known memory. */
#include <stdio.h>
#include <string.h>

int table[4] = {1, -2, 300, 0x7fffffff};
double ratios[2] = {1.5, -0.25};
const char *greeting = "hello, world";
void (*handlers[2])(void);

static void tick(void) { puts("tick"); }

int main(void) {
    int buf[4] = {0x11223344, -1, 42, 0};
    char msg[16];
    const char *text = "examine";
    handlers[0] = tick;
    handlers[1] = 0;
    strcpy(msg, "hi\tthere");
    printf("%s %s %d\n", msg, text, buf[0]); /* @bp:examine */
    return 0;
}
