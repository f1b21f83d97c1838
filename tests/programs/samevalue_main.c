/* Calls samevalue_lib.c's functions through the PLT (the library is its own module). */
int lib2(int);
int multi(int, int, int);
int after(int);
long inrbx(long);

int main(void) {
    int s = lib2(2) + multi(1, 2, 3) + after(4) + (int)inrbx(5);
    return s == 0;
}
