/* Scenarios for the CFI unwinder, chosen by argv[1]; every one ends in leaf(). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NI __attribute__((noinline, noipa))

volatile int sink;

NI int leaf(int n) { sink += n; return n * 3; }

NI int chain8(int n) { return leaf(n + 8) + 1; }
NI int chain7(int n) { return chain8(n * 7) + 1; }
NI int chain6(int n) { return chain7(n + 6) + 1; }
NI int chain5(int n) { return chain6(n ^ 5) + 1; }
NI int chain4(int n) { return chain5(n + 4) + 1; }
NI int chain3(int n) { return chain4(n * 3) + 1; }
NI int chain2(int n) { return chain3(n + 2) + 1; }
NI int chain1(int n) { return chain2(n | 1) + 1; }

NI int recurse(int n) {
    volatile int depth = n; /* read after the call: no tail-recursion elimination */
    if (n == 0)
        return leaf(0);
    int below = recurse(n - 1);
    return below + depth;
}

NI int compare(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    leaf(x);
    return (x > y) - (x < y);
}

NI void on_signal(int signo) { sink += leaf(signo); }

NI void on_segv(int signo) {
    leaf(signo);
    _exit(0);
}

NI int interrupted(int n) {
    raise(SIGUSR1);
    return n + sink;
}

NI int crash(int *p) {
    sink += 2;
    *p = sink; /* faults: p is NULL */
    return sink;
}

NI void *thread_main(void *arg) {
    sink += chain1((int)(long)arg);
    return NULL;
}

NI int call_puts(const char *text) {
    puts(text);
    return sink + 1;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "chain";
    if (!strcmp(what, "chain")) {
        sink += chain1(argc);
    } else if (!strcmp(what, "recurse")) {
        sink += recurse(20);
    } else if (!strcmp(what, "qsort")) {
        int values[] = {5, 3, 9, 1, 7};
        qsort(values, 5, sizeof values[0], compare);
    } else if (!strcmp(what, "signal")) {
        signal(SIGUSR1, on_signal);
        sink += interrupted(argc);
    } else if (!strcmp(what, "segv")) {
        signal(SIGSEGV, on_segv);
        sink += crash(argc > 5 ? &argc : NULL);
    } else if (!strcmp(what, "thread")) {
        pthread_t thread;
        pthread_create(&thread, NULL, thread_main, (void *)(long)argc);
        pthread_join(thread, NULL);
    } else if (!strcmp(what, "puts")) {
        sink += call_puts("hello");
    }
    printf("%d\n", sink);
    return 0;
}
