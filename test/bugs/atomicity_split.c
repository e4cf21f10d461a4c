/* atomicity_split.c — check-then-act in two critical sections: two withdrawals overdraw (fixed: one critical section) */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static void* withdraw(void* arg) {
  const int amount = 70;
  (void)arg;
  pthread_mutex_lock(&m);
  int enough = balance >= amount;
#ifndef FIXED
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
#endif
  if (enough) balance -= amount;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, withdraw, NULL);
  pthread_create(&t2, NULL, withdraw, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return balance >= 0 ? 0 : 1;
}
