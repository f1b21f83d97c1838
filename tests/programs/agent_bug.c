/* A planted bug for the agent tools: record_deposits writes one element past `history`
   (an off-by-one in its loop), which lands on `balance` right after the array and
   corrupts it. The program then prints a wrong balance. */
#include <stdio.h>

#define DAYS 5

struct account {
    int history[DAYS];
    int balance;
};

__attribute__((noinline)) void record_deposits(struct account *acct, int amount) {
    for (int day = 0; day <= DAYS; day++) { acct->history[day] = amount * day; } /* @bp:bug */
}

__attribute__((noinline)) int total(const struct account *acct) {
    int sum = 0;
    for (int day = 0; day < DAYS; day++) {
        sum += acct->history[day]; /* @bp:sum */
    }
    return sum;
}

int main(void) {
    struct account acct;
    acct.balance = 100; /* @bp:init */
    printf("opening balance %d\n", acct.balance); /* @bp:opened */
    fflush(stdout);
    record_deposits(&acct, 10);
    int deposits = total(&acct);
    printf("deposits %d\n", deposits);
    printf("closing balance %d (expected 100)\n", acct.balance); /* @bp:report */
    return acct.balance == 100 ? 0 : 1;
}
