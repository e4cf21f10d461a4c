/* lost_wakeup.c — the consumer waits without a predicate: a signal sent before it waits is lost (fixed: a flag and a loop) */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int item, produced;

static void* producer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  item = 42;
  produced = 1;
  pthread_cond_signal(&ready);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  pthread_mutex_lock(&m);
#ifdef FIXED
  while (!produced) pthread_cond_wait(&ready, &m);
#else
  pthread_cond_wait(&ready, &m);
#endif
  const int got = item;
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  return got == 42 ? 0 : 1;
}
