/* Prints its environment, one NAME=VALUE a line. */
#include <stdio.h>

extern char **environ;

int main(void) {
    for (char **entry = environ; *entry != NULL; entry++)
        printf("%s\n", *entry); /* @bp:print */
    return 0;
}
