/* Raises SIGUSR1 at itself again and again, writing a line right after each: under
   `handle SIGUSR1 nostop print` each "Program received signal" message comes before it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void handler(int sig) { (void)sig; }

int main(void) {
    signal(SIGUSR1, handler);
    for (int i = 0; i < 40; i++) {
        char line[32];
        raise(SIGUSR1);
        snprintf(line, sizeof line, "after %d\n", i);
        if (write(1, line, strlen(line)) < 0)
            return 1;
    }
    return 0;
}
