/* Calls into glibc by names that are aliases of its functions' DWARF names: raise is
   __GI_raise in libc6-dbg's DWARF (an assembler name), write __GI___libc_write. */
#include <signal.h>
#include <unistd.h>

int main(void)
{
    write(1, "", 0); /* @bp:call */
    raise(SIGUSR1);
    return 0;
}
