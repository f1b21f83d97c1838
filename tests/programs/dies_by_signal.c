/* Ends by a signal it sends itself (SIGTERM, not caught), or with exit status 3 when
   given an argument: gdb's $_exitsignal and $_exitcode after the end. */
#include <signal.h>

int main(int argc, char **argv)
{
    (void)argv;
    if (argc < 2)
        raise(SIGTERM); /* @bp:raise */
    return 3;
}
