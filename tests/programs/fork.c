/* Parent and child both call forked_func(); the parent reports how the child ended. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void forked_func(const char *who) {
    printf("%s in forked_func\n", who); /* @bp:forked_func */
    fflush(stdout);
}

int main(void) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        forked_func("child");
        printf("child done\n");
        fflush(stdout);
        _exit(7);
    }
    forked_func("parent");
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) { perror("waitpid"); return 3; }
    if (WIFEXITED(status))
        printf("child exited %d\n", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("child killed by signal %d\n", WTERMSIG(status));
    return 0;
}
