/* Exits with the code given as argv[1]. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int code = argc > 1 ? atoi(argv[1]) : 0;
    printf("exiting with %d\n", code);
    return code; /* @bp:return */
}
