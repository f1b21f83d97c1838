/* A virtual timer's SIGVTALRM interrupts a busy loop; its handler ends the loop (as
   gdb's siginfo.c and sigstep.c use it). With an argument, a real-time timer's SIGALRM
   does (it fires while the loop is single-stepped, which takes little user time). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static volatile int done;

static void handler(int sig) {
    done = sig;
} /* @bp:handler_end */

int main(int argc, char **argv) {
    (void)argv;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    sigaction(SIGVTALRM, &action, 0);
    sigaction(SIGALRM, &action, 0);
    struct itimerval itime;
    memset(&itime, 0, sizeof(itime));
    itime.it_value.tv_usec = 50 * 1000;
    setitimer(argc > 1 ? ITIMER_REAL : ITIMER_VIRTUAL, &itime, 0);
    while (!done) /* @bp:loop */
        ;
    return 0; /* @bp:after_loop */
}
