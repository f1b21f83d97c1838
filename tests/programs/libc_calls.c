/* Calls into libc through the program's PLT: sigaction (an ELF alias of glibc's
   __GI___sigaction, and a copy in ld.so), memset and strlen (ifuncs in libc, plain
   functions in ld.so) and strcpy (an ifunc of libc's alone). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static char buffer[64];

static void on_usr1(int sig) { buffer[0] = (char)sig; }

int main(int argc, char **argv) {
    struct sigaction action;
    memset(&action, 0, sizeof action); /* first call */
    action.sa_handler = on_usr1;
    sigaction(SIGUSR1, &action, NULL);
    size_t n = strlen(argv[0]);
    memset(buffer, 'x', 8); /* @bp:resolved (both resolved by now) */
    n += strlen(buffer);
    const char *which = argc > 5 ? "many" : "few";
    char copy[8];
    strcpy(copy, which); /* an ifunc ld.so has no copy of */
    printf("%zu %d %s\n", n, argc, copy); /* @bp:printed */
    return 0;
}
