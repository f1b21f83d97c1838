/* Calls for the trace tests: known counts, arguments and return values, recursion,
 * a struct by value, threads, output, and (with argv[1] == "crash") a crash. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct point { int x; int y; };

int square(int n) { return n * n; }

long sum_point(struct point p, long scale) { return (p.x + p.y) * scale; }

const char *label(int i) { return i % 2 ? "odd" : "even"; }

void note(const char *text) { printf("note %s\n", text); }

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int outer(int n) { return square(n) + 1; }

void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 3; i++)
        square((int)id * 10 + i);
    return NULL;
}

int crash_here(int *where, int depth)
{
    int local_marker = 4242; /* locals of the crashing frame */
    if (depth > 0)
        return crash_here(where, depth - 1);
    *where = local_marker; /* @bp:fault */
    return 0;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i <= 5; i++)
        total += square(i);
    struct point p = {3, 4};
    printf("sum %ld\n", sum_point(p, 2));
    for (int i = 0; i < 3; i++)
        note(label(i));
    printf("fib %d outer %d total %d\n", fib(5), outer(7), total);
    fflush(stdout);
    pthread_t threads[2];
    for (long t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, worker, (void *)(t + 1));
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    if (argc > 1 && strcmp(argv[1], "crash") == 0)
        crash_here(NULL, 2);
    return 0;
}
