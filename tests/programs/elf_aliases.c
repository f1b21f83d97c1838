/* Functions several ELF symbols name (aliases): gdb names an address by the minimal
   symbol of the greatest name (strcmp) among those there, a global one before a local
   one just before it of the same size. */
#include <unistd.h>

void before_alias(void) __attribute__((alias("plain_target"))); /* declared before */
int counter;
void plain_target(void) { counter++; }
void alias_target(void) __attribute__((alias("plain_target"))); /* and after */
void zz_weak(void) __attribute__((weak, alias("plain_target")));
void Upper(void) __attribute__((alias("plain_target")));
static void local_fn(void) { counter += 2; }
void global_of_local(void) __attribute__((alias("local_fn")));
static void zlocal(void) __attribute__((alias("local_fn")));
void other(void) { counter += 3; }
void aaa_other(void) __attribute__((weak, alias("other")));

int main(void) {
    plain_target();
    zlocal();
    other();
    write(1, "x\n", 2); /* into libc through an aliased function */
    return counter == 6 ? 0 : 1;
}
