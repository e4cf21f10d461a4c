/* pthread_exit_locked.c — a worker leaves with pthread_exit on an error path while it holds a lock (fixed: it unlocks first) */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int configured, handled;

static void* configure(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  configured = 1;
  pthread_mutex_unlock(&m);
  return NULL;
}

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  if (!configured) {  /* too early: give up */
#ifdef FIXED
    pthread_mutex_unlock(&m);
#endif
    pthread_exit(NULL);
  }
  ++handled;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t c, w;
  pthread_create(&c, NULL, configure, NULL);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(c, NULL);
  pthread_join(w, NULL);
  pthread_mutex_lock(&m);
  const int ok = configured;
  pthread_mutex_unlock(&m);
  return ok ? 0 : 1;
}
