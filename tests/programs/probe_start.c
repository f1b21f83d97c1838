/* What a start gave the program: its arguments, an environment variable, the last part of
   its working directory and its stdin's first line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char where[4096] = "", line[256] = "";
    const char *value = getenv("PROBE_VAR");
    for (int i = 1; i < argc; i++)
        printf("arg %d: [%s]\n", i, argv[i]);
    printf("PROBE_VAR: %s\n", value ? value : "(unset)");
    if (getcwd(where, sizeof where) != NULL)
        printf("cwd: %s\n", strrchr(where, '/') + 1);
    if (fgets(line, sizeof line, stdin) != NULL)
        printf("stdin: %s", line);
    return 0;
}
