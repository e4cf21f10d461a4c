/* assert_in_thread.c — an auditor asserts the total while transfers move money one account at a time (fixed: transfers and audits hold both accounts) */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock_[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int account[2] = {50, 50};

static void* transfer(void* arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) {
#ifdef FIXED
    pthread_mutex_lock(&lock_[0]);
    pthread_mutex_lock(&lock_[1]);
    account[0] -= 10;
    account[1] += 10;
    pthread_mutex_unlock(&lock_[1]);
    pthread_mutex_unlock(&lock_[0]);
#else
    pthread_mutex_lock(&lock_[0]);
    account[0] -= 10;
    pthread_mutex_unlock(&lock_[0]);
    pthread_mutex_lock(&lock_[1]);
    account[1] += 10;
    pthread_mutex_unlock(&lock_[1]);
#endif
  }
  return NULL;
}

static void* audit(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock_[0]);
  pthread_mutex_lock(&lock_[1]);
  const int total = account[0] + account[1];
  pthread_mutex_unlock(&lock_[1]);
  pthread_mutex_unlock(&lock_[0]);
  assert(total == 100 && "money is neither made nor lost");
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, transfer, NULL);
  pthread_create(&t2, NULL, audit, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
