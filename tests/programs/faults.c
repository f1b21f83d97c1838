/* Fault scenarios chosen by argv[1]:
   slow          call slow(), which sleeps up to 60 s (a target for kill-while-stepping)
   fork N        fork N children that exit at once (status = index % 100), reap them all
   exitsoon      exit with 3 after a few milliseconds
   output MB     write MB megabytes to stdout as fast as possible, then exit 0
   wait          sleep up to 60 s in a loop of short sleeps (a target for attach) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile int progress;

__attribute__((noinline)) void slow(void) {
    for (int i = 0; i < 600; i++) {
        progress = i; /* @bp:slow_loop */
        usleep(100000);
    }
}

static int forks(int n) {
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) _exit(i % 100);
    }
    int reaped = 0;
    while (wait(NULL) > 0) reaped++;
    printf("reaped %d\n", reaped);
    return reaped == n ? 0 : 1;
}

static int output(long megabytes) {
    static char line[1024];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (long i = 0; i < megabytes * 1024; i++) {
        if (fwrite(line, 1, sizeof line, stdout) != sizeof line) return 1;
    }
    fflush(stdout);
    fprintf(stderr, "wrote %ld MB\n", megabytes);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "slow";
    progress = -1; /* @bp:start */
    if (strcmp(mode, "slow") == 0) {
        slow(); /* @bp:call_slow */
        return 0;
    }
    if (strcmp(mode, "fork") == 0) return forks(argc > 2 ? atoi(argv[2]) : 100);
    if (strcmp(mode, "exitsoon") == 0) {
        usleep(20000);
        return 3;
    }
    if (strcmp(mode, "output") == 0) return output(argc > 2 ? atol(argv[2]) : 1);
    if (strcmp(mode, "wait") == 0) {
        for (int i = 0; i < 600; i++) {
            progress = i; /* @bp:wait_loop */
            usleep(100000);
        }
        return 0;
    }
    return 64;
}
