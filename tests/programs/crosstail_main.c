/* Calls crosstail_lib.c's f through the PLT. */
int f(int);

int main(void) { return f(4) == 16 ? 0 : 1; }
