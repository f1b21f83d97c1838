/* Globals of 1, 2, 4 and 8 bytes written in a loop, and one that is only read. */
#include <stdio.h>

volatile int global_counter;
volatile unsigned char g_u8;
volatile unsigned short g_u16;
volatile unsigned long long g_u64;
volatile int g_read_me = 77;
volatile int g_sink;

int main(void) {
    for (int i = 0; i < 5; i++) {
        global_counter++; /* @bp:counter */
        g_u8 += 1;
        g_u16 += 2;
        g_u64 += 3;
        g_sink = g_read_me;
    }
    printf("counter=%d u8=%d u16=%d u64=%llu sink=%d\n", global_counter, g_u8, g_u16, g_u64, g_sink);
    return 0;
}
