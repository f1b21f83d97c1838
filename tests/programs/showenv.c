/* Prints argv, the working directory and ALICE_TEST_VAR. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char cwd[4096];
    for (int i = 1; i < argc; i++) printf("arg[%d]=%s\n", i, argv[i]);
    printf("cwd=%s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    const char *v = getenv("ALICE_TEST_VAR");
    printf("env=%s\n", v ? v : "(unset)");
    printf("home=%s\n", getenv("HOME") ? "set" : "unset");
    fprintf(stderr, "to stderr\n");
    return 0;
}
