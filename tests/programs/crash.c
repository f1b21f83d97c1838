/* One synchronous crash chosen by argv[1]: segv, fpe, ill, bus, abort. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

volatile int zero = 0;
volatile int one = 1;

__attribute__((noinline)) void crash_segv(void) {
    *(volatile int *)0x10 = 1; /* @bp:segv */
}

__attribute__((noinline)) int crash_fpe(void) {
    return one / zero; /* @bp:fpe */
}

__attribute__((noinline)) void crash_ill(void) {
    __builtin_trap(); /* @bp:ill */
}

__attribute__((noinline)) void crash_bus(void) {
    int fd = memfd_create("alice-bus", 0); /* no file system path needed */
    if (fd < 0) { perror("memfd_create"); exit(90); }
    if (ftruncate(fd, 4096) != 0) { perror("ftruncate"); exit(91); }
    volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(92); }
    if (ftruncate(fd, 0) != 0) { perror("ftruncate"); exit(93); }
    fprintf(stderr, "map=%p\n", (void *)p);
    p[0] = 1; /* @bp:bus */
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "segv";
    if (!strcmp(mode, "segv")) crash_segv();
    else if (!strcmp(mode, "fpe")) crash_fpe();
    else if (!strcmp(mode, "ill")) crash_ill();
    else if (!strcmp(mode, "bus")) crash_bus();
    else if (!strcmp(mode, "abort")) abort(); /* @bp:abort */
    else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    fprintf(stderr, "no crash\n");
    return 1;
}
