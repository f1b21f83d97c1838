/* A SIGALRM and SIGUSR1 handler, and old-style (unprototyped) void functions, as gdb's
   signals.exp uses them: alarm() fires while the program runs or while the debugger
   calls func1. */
#include <signal.h>
#include <unistd.h>

static int count = 0;

static void handler(int sig) {
    signal(sig, handler);
    ++count;
}

static void func1() { ++count; }

static void func2() { ++count; }

int main() {
    signal(SIGALRM, handler);
    signal(SIGUSR1, handler);
    alarm(1);
    ++count; /* @bp:first */
    alarm(1);
    ++count; /* @bp:second */
    func1();
    alarm(1);
    func2();
    return count;
}
