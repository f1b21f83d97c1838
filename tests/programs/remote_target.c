/* A small program for the remote (gdb RSP) backend's tests: a global to read, functions to
   break at, a watched variable, and a loop to interrupt. Exits with 5 + 7 = 12. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int remote_counter = 0;
char remote_greeting[] = "hello over the wire";
volatile int remote_spin = 1;

int remote_add(int a, int b)
{
    return a + b; /* @bp:add */
}

void remote_touch(void)
{
    remote_counter += 7; /* @bp:touch */
}

int main(int argc, char **argv)
{
    int total = remote_add(2, 3);
    remote_touch();
    if (argc > 1 && strcmp(argv[1], "spin") == 0) {
        while (remote_spin) /* @bp:spin */
            usleep(1000);
    }
    printf("total %d\n", total);
    return total + remote_counter;
}
