/* Arrays and strings for gdb's print elements, print repeats and set confirm. */
#include <stdio.h>

int arr[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
int reps[12] = {0, 0, 0, 0, 0, 7, 7, 7, 1, 2, 3, 4};
const char *str = "abcdefghij";

int main(void) {
    printf("%d %d %s\n", arr[0], reps[0], str); /* @bp:main */
    return 0;
}
