/* A virtual timer's SIGVTALRM interrupts a busy loop; its handler ends the loop (as
   gdb's siginfo.c and sigstep.c use it). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static volatile int done;

static void handler(int sig) {
    done = sig;
} /* @bp:handler_end */

int main(void) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    sigaction(SIGVTALRM, &action, 0);
    struct itimerval itime;
    memset(&itime, 0, sizeof(itime));
    itime.it_value.tv_usec = 50 * 1000;
    setitimer(ITIMER_VIRTUAL, &itime, 0);
    while (!done)
        ;
    return 0; /* @bp:after_loop */
}
