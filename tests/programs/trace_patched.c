/* Calls for the jump-patch tracing tests: recursion, scalars of every register class, a
 * struct by value, arguments passed on the stack, a function whose ret no patch can serve,
 * four threads, fork and exec. argv[1]: "threads", "fork", "exec", "spin" (runs until
 * killed, for changes while it runs) or nothing (the single-threaded calls). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pair { int a; double b; };

__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) double scale(double x, float f, long k) { return x * f + k; }

__attribute__((noinline)) long mix(struct pair p, char c, unsigned short u) { return p.a + (long)p.b + c + u; }

__attribute__((noinline)) long eight(long a, long b, long c, long d, long e, long f, long g, long h)
{
    return a + b + c + d + e + f + g * 100 + h * 1000;
}

/* Hand-written so that its ret is always the target of a jump (no patch may end there). */
__attribute__((naked, noinline)) long clamp(long x)
{
    __asm__("push %rbp\n"
            "mov %rsp, %rbp\n"
            "mov %rdi, %rax\n"
            "cmp $5, %rdi\n"
            "jle 1f\n"
            "mov $5, %eax\n"
            "1:\n"
            "pop %rbp\n"
            "ret\n");
}

__attribute__((noinline)) int work(int id, int i) { return id * 1000 + i; }

static volatile int spinning = 1;

void *worker(void *arg)
{
    long id = (long)arg, sum = 0;
    for (int i = 0; i < 200; i++)
        sum += work((int)id, i);
    return (void *)sum;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "threads") == 0) {
        pthread_t threads[4];
        for (long t = 0; t < 4; t++)
            pthread_create(&threads[t], NULL, worker, (void *)(t + 1));
        for (int t = 0; t < 4; t++)
            pthread_join(threads[t], NULL);
        return 0;
    }
    if (strcmp(mode, "spin") == 0) {
        for (long i = 0; spinning; i++)
            work(1, (int)(i & 1023));
        return 0;
    }
    if (strcmp(mode, "fork") == 0) {
        pid_t child = fork();
        for (int i = 0; i < 3; i++)
            work(child == 0 ? 7 : 8, i);
        if (child == 0)
            _exit(0);
        int status;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 9;
    }
    if (strcmp(mode, "exec") == 0) {
        work(9, 1);
        execl(argv[0], argv[0], NULL);
        return 8;
    }
    struct pair p = {3, 4.5};
    long total = fib(6) + (long)scale(1.5, 2.0f, 3) + mix(p, 'A', 7) + eight(1, 2, 3, 4, 5, 6, 7, 8);
    for (long x = 3; x < 8; x++)
        total += clamp(x);
    printf("total %ld\n", total);
    return 0;
}
