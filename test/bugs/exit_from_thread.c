/* exit_from_thread.c — a logger exits the whole process when it sees a half-published record (fixed: published in one critical section) */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;
static const char* record;

static void* logger(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  const int n = count;
  const char* r = record;
  pthread_mutex_unlock(&m);
  if (n == 1 && r == NULL) exit(3); /* "corrupt log": the logger takes the process down */
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, logger, NULL);
  pthread_mutex_lock(&m);
  count = 1;
#ifndef FIXED
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
#endif
  record = "started";
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  return 0;
}
