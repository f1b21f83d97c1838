/* A program doing real work through many small functions (tokenizing, hashing, a hash
 * table, arithmetic on small structs), with a few cold functions called once per round:
 * the tracing overhead benchmark traces `cold_*` and compares its CPU time to untraced
 * runs. argv[1]: rounds (default 1500). It prints its own CPU time (all threads) at exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUCKETS 4096
#define WORDS 20000

struct entry { unsigned hash; int count; char word[24]; };
struct vec { double x, y; };

static struct entry table[BUCKETS];
static char text[WORDS * 8];
static volatile unsigned long sink;

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }
static unsigned mix(unsigned h, char c) { return (h ^ (unsigned char)c) * 16777619u; }
static unsigned hash_word(const char *w, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = mix(h, lower(w[i]));
    return h;
}
static int same_word(const struct entry *e, const char *w, int n)
{
    for (int i = 0; i < n; i++)
        if (e->word[i] != lower(w[i]))
            return 0;
    return e->word[n] == 0;
}
static void store_word(struct entry *e, unsigned h, const char *w, int n)
{
    e->hash = h;
    for (int i = 0; i < n && i < 23; i++)
        e->word[i] = lower(w[i]);
    e->word[n < 23 ? n : 23] = 0;
}
static struct entry *find_slot(unsigned h, const char *w, int n)
{
    for (unsigned i = h % BUCKETS;; i = (i + 1) % BUCKETS) {
        struct entry *e = &table[i];
        if (e->count == 0) {
            store_word(e, h, w, n);
            return e;
        }
        if (e->hash == h && same_word(e, w, n))
            return e;
    }
}
static void count_word(const char *w, int n) { find_slot(hash_word(w, n), w, n)->count++; }
static int next_word(const char *s, int *start, int *length)
{
    int i = *start + *length;
    while (s[i] && !is_letter(s[i]))
        i++;
    if (!s[i])
        return 0;
    int j = i;
    while (is_letter(s[j]))
        j++;
    *start = i;
    *length = j - i;
    return 1;
}
static struct vec add(struct vec a, struct vec b) { return (struct vec){a.x + b.x, a.y + b.y}; }
static struct vec scale(struct vec a, double k) { return (struct vec){a.x * k, a.y * k}; }
static double dot(struct vec a, struct vec b) { return a.x * b.x + a.y * b.y; }
static double step_body(int i)
{
    struct vec p = {i * 0.5, i * 0.25}, v = {1.0, -1.0};
    for (int k = 0; k < 8; k++)
        p = add(p, scale(v, 0.125));
    return dot(p, v);
}

/* Cold: once per round, or once per run. */
__attribute__((noinline)) void cold_setup(unsigned seed)
{
    const char *words[] = {"alpha", "Beta", "gamma", "delta", "EPSILON", "zeta", "eta", "theta"};
    char *out = text;
    for (int i = 0; i < WORDS - 1; i++) {
        seed = seed * 1103515245u + 12345u;
        const char *w = words[(seed >> 16) % 8];
        size_t n = strlen(w);
        memcpy(out, w, n);
        out[n] = (seed & 0x100) ? ',' : ' ';
        out += n + 1;
    }
    *out = 0;
}
__attribute__((noinline)) int cold_round_report(int round, unsigned long total)
{
    return (int)((total + (unsigned long)round) & 0xff);
}
__attribute__((noinline)) long cold_summary(long rounds) { return rounds * 2; }

static unsigned long one_round(void)
{
    int start = 0, length = 0;
    unsigned long words = 0;
    memset(table, 0, sizeof table);
    while (next_word(text, &start, &length)) {
        count_word(text + start, length);
        words++;
    }
    double acc = 0;
    for (int i = 0; i < 20000; i++)
        acc += step_body(i);
    return words + (unsigned long)acc;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1500;
    cold_setup(12345u);
    unsigned long total = 0;
    for (long r = 0; r < rounds; r++) {
        total += one_round();
        sink += (unsigned long)cold_round_report((int)r, total);
    }
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    printf("total=%lu summary=%ld cpu_ns=%lld\n", total, cold_summary(rounds),
           (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
    return 0;
}
