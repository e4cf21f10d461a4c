/* philosophers.c — three philosophers, each takes the left fork first (fixed: the lower-numbered fork first) */
#include <pthread.h>
#include <stdint.h>

#define N 3
static pthread_mutex_t fork_[N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int meals;
static pthread_mutex_t count = PTHREAD_MUTEX_INITIALIZER;

static void* dine(void* arg) {
  const int i = (int)(intptr_t)arg;
  int first = i, second = (i + 1) % N;
#ifdef FIXED
  if (second < first) {
    first = second;
    second = i;
  }
#endif
  for (int round = 0; round < 2; ++round) {
    pthread_mutex_lock(&fork_[first]);
    pthread_mutex_lock(&fork_[second]);
    pthread_mutex_lock(&count);
    ++meals;
    pthread_mutex_unlock(&count);
    pthread_mutex_unlock(&fork_[second]);
    pthread_mutex_unlock(&fork_[first]);
  }
  return NULL;
}

int main(void) {
  pthread_t t[N];
  for (int i = 0; i < N; ++i) pthread_create(&t[i], NULL, dine, (void*)(intptr_t)i);
  for (int i = 0; i < N; ++i) pthread_join(t[i], NULL);
  return meals == 2 * N ? 0 : 1;
}
