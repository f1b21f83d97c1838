/* Process events for catchpoints (test_catchpoints.py): a write, a signal the program
   handles, and a fork whose child exits 3. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int handled;

static void on_usr1(int sig) { handled = sig; }

int main(void) {
    const char *text = "hello\n";
    write(1, text, strlen(text)); /* @bp:write */
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1); /* @bp:raise */
    pid_t pid = fork();
    if (pid == 0)
        _exit(3);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("handled %d child %d\n", handled, WEXITSTATUS(status));
    return 0;
}
