/* A thread that renames itself (PR_SET_NAME) between the main thread's stops at
   checkpoint(), and one named at its start, alive at the second stop only: a debugger
   reads the names anew at each stop. */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int asked, answered, brief_named;
volatile int sink;

static void *renamer(void *arg) {
    char name[16];
    (void)arg;
    for (int round = 1; round <= 3; round++) {
        pthread_mutex_lock(&lock);
        while (asked < round)
            pthread_cond_wait(&cond, &lock);
        snprintf(name, sizeof name, "renamed-%d", round);
        prctl(PR_SET_NAME, name);
        answered = round;
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    while (asked < 4) /* alive at the last stop */
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *brief(void *arg) {
    prctl(PR_SET_NAME, (char *)arg);
    pthread_mutex_lock(&lock);
    brief_named = 1;
    pthread_cond_broadcast(&cond);
    while (asked < 3)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

void checkpoint(int round) {
    sink = round; /* @bp:checkpoint */
}

int main(void) {
    pthread_t worker, passing;
    prctl(PR_SET_NAME, "main-thread");
    pthread_create(&worker, NULL, renamer, NULL);
    for (int round = 1; round <= 3; round++) {
        if (round == 2)
            pthread_create(&passing, NULL, brief, "brief");
        pthread_mutex_lock(&lock);
        asked = round;
        pthread_cond_broadcast(&cond);
        while (answered < round || (round == 2 && !brief_named))
            pthread_cond_wait(&cond, &lock);
        pthread_mutex_unlock(&lock);
        if (round == 3)
            pthread_join(passing, NULL);
        checkpoint(round);
    }
    pthread_mutex_lock(&lock);
    asked = 4;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pthread_join(worker, NULL);
    return 0;
}
