/* order_violation.c — a thread uses what main sets up only after starting it (fixed: set up first) */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct config {
  int port;
};
static struct config* shared;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  struct config* c = shared;
  pthread_mutex_unlock(&m);
  assert(c != NULL && "the configuration is set up before the worker reads it");
  return c->port == 80 ? NULL : (void*)1;
}

int main(void) {
  pthread_t t;
#ifdef FIXED
  shared = malloc(sizeof *shared);
  shared->port = 80;
  pthread_create(&t, NULL, worker, NULL);
#else
  pthread_create(&t, NULL, worker, NULL);
  struct config* c = malloc(sizeof *c);
  c->port = 80;
  pthread_mutex_lock(&m);
  shared = c;
  pthread_mutex_unlock(&m);
#endif
  void* bad = NULL;
  pthread_join(t, &bad);
  return bad == NULL ? 0 : 1;
}
