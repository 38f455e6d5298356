/* test_frontier.c: the readable prefix of a file being written (rk/frontier.h), with a
 * real writer thread. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rk/frontier.h"
#include "rk_test.h"

struct writer {
	struct rk_frontier *f;
	uint64_t step, size;
	int end_rc;
	_Atomic uint64_t written; /* what the writer has published so far */
};

static void *write_main(void *p)
{
	struct writer *w = p;

	for (uint64_t done = w->step; done <= w->size; done += w->step) {
		usleep(1000);
		atomic_store(&w->written, done);
		rk_frontier_advance(w->f, done);
	}
	rk_frontier_end(w->f, w->end_rc);
	return NULL;
}

/* Each wait returns once the writer has reached what it asks for, never before. */
RK_TEST(wait_returns_at_the_frontier)
{
	struct writer w = {rk_frontier_new(64), 8, 64, 0, 0};
	pthread_t t;

	RK_ASSERT(w.f);
	RK_ASSERT_EQ_INT(0, rk_frontier_wait(w.f, 0));
	RK_ASSERT_EQ_INT(0, pthread_create(&t, NULL, write_main, &w));
	for (uint64_t want = 1; want <= 64; want += 5) {
		RK_ASSERT_EQ_INT(0, rk_frontier_wait(w.f, want));
		RK_ASSERT(atomic_load(&w.written) >= want);
	}
	RK_ASSERT_EQ_INT(0, rk_frontier_wait(w.f, UINT64_MAX)); /* capped at the size */
	pthread_join(t, NULL);
	rk_frontier_put(w.f);
}

/* A failure wakes a reader waiting past the frontier, and fails reads below it too,
 * also after the file was whole. */
RK_TEST(failure_is_final_and_covers_written_bytes)
{
	struct writer w = {rk_frontier_new(64), 8, 32, -EBADMSG, 0};
	pthread_t t;

	RK_ASSERT_EQ_INT(0, pthread_create(&t, NULL, write_main, &w));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_frontier_wait(w.f, 40)); /* never written */
	pthread_join(t, NULL);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_frontier_wait(w.f, 1));
	rk_frontier_end(w.f, 0); /* cannot undo it */
	RK_ASSERT_EQ_INT(-EBADMSG, rk_frontier_wait(w.f, 1));
	rk_frontier_put(w.f);

	w = (struct writer){rk_frontier_new(16), 16, 16, 0, 0};
	RK_ASSERT_EQ_INT(0, pthread_create(&t, NULL, write_main, &w));
	pthread_join(t, NULL);
	RK_ASSERT_EQ_INT(0, rk_frontier_wait(w.f, 16));
	rk_frontier_end(w.f, -EIO); /* its archive failed later */
	RK_ASSERT_EQ_INT(-EIO, rk_frontier_wait(w.f, 1));
	rk_frontier_put(w.f);
}

/* References: the last put frees (ASan checks), get of NULL is NULL. */
RK_TEST(references)
{
	struct rk_frontier *f = rk_frontier_new(1);

	RK_ASSERT(rk_frontier_get(f) == f);
	rk_frontier_put(f);
	rk_frontier_put(f);
	RK_ASSERT(rk_frontier_get(NULL) == NULL);
	rk_frontier_put(NULL);
}
