/* Prints LINES and COLUMNS from its environment and where its stack is. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int local = 0;
    const char *lines = getenv("LINES"), *columns = getenv("COLUMNS");
    printf("LINES=%s COLUMNS=%s local=%p\n", lines ? lines : "(unset)", columns ? columns : "(unset)",
           (void *)&local);
    return local;
}
