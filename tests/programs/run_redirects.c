/* Shows what `run ARGS < in > out 2> err` gave it: its arguments, its stdin's lines (to
   stdout) and one line on stderr. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char line[256];
    for (int i = 1; i < argc; i++)
        printf("arg %d: [%s]\n", i, argv[i]);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        printf("in: %s\n", line); /* @bp:line */
    }
    fprintf(stderr, "to stderr\n");
    return 0;
}
