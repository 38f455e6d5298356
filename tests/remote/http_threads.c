/* http_threads: many threads sharing one struct rk_http, as the daemon's listing, ingest
 * and reader threads do: HEADs, ranged GETs and streams of the given paths under URL.
 * tests/integration/remote_http_threads.sh runs it under helgrind (races inside libcurl)
 * and natively.
 *
 *	http_threads URL THREADS ITERATIONS PATH...
 *
 * Exit status: 0 when every request got the bytes it asked for, 1 otherwise, 2 usage. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "store/http.h"

#define THREADS_MAX 64

static struct rk_http *http;
static const char *base;
static char **paths;
static int npaths, iters;
static atomic_long requests, failures;

static int one(unsigned *seed)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf body = RK_BUF_INIT, url = RK_BUF_INIT;
	struct rk_http_meta m = {0};
	struct rk_http_target t = {NULL, NULL, NULL};
	int kind = rand_r(seed) % 4, rc;

	if (rk_buf_addf(&url, "%s%s", base, paths[rand_r(seed) % npaths]))
		return -1;
	t.url = url.buf;
	rc = rk_http_get(http, &t, 1, 0, 0, 0, &body, &m, &err);
	if (!rc && m.length && kind == 1) { /* a range of it */
		uint64_t off = rand_r(seed) % m.length, len = 1 + rand_r(seed) % 4096;

		rc = rk_http_get(http, &t, 0, off, len, 4096, &body, NULL, &err);
		if (!rc && body.len != RK_MIN(len, m.length - off))
			rc = rk_err_set(&err, -1, "%zu bytes of a range", body.len);
	} else if (!rc && m.length && kind == 2) { /* the start of a stream */
		struct rk_http_stream *s;
		char buf[16384];
		uint64_t want = 1 + (uint64_t)(rand_r(seed) % 65536), got = 0;
		ssize_t n = 0;

		want = RK_MIN(want, m.length);
		if (!(rc = rk_http_stream_open(http, &t, m.length, &s, &err))) {
			while (got < want &&
			       (n = rk_http_stream_read(s, buf, sizeof(buf), &err)) > 0)
				got += (uint64_t)n;
			if (n < 0)
				rc = (int)n;
			else if (got < want)
				rc = rk_err_set(&err, -1, "stream ended at %" PRIu64, got);
			rk_http_stream_close(s);
		}
	}
	atomic_fetch_add(&requests, 1);
	if (rc)
		fprintf(stderr, "http_threads: %s: %s\n", url.buf, rk_err_str(&err, rc));
	rk_buf_release(&body);
	rk_buf_release(&url);
	return rc;
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < iters; i++)
		if (one(&seed))
			atomic_fetch_add(&failures, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	pthread_t th[THREADS_MAX];
	int nth, started = 0;

	if (argc < 5 || (nth = atoi(argv[2])) < 1 || nth > THREADS_MAX ||
	    (iters = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: http_threads URL THREADS ITERATIONS PATH...\n");
		return 2;
	}
	base = argv[1];
	paths = argv + 4;
	npaths = argc - 4;
	if (rk_http_new(NULL, &http, &err)) {
		fprintf(stderr, "http_threads: %s\n", rk_err_str(&err, -1));
		return 1;
	}
	for (int i = 0; i < nth; i++)
		if (!pthread_create(&th[started], NULL, worker, (void *)(uintptr_t)(i * 7919 + 1)))
			started++;
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	rk_http_free(http);
	printf("http_threads: %ld requests, %ld failed, %d threads\n", atomic_load(&requests),
	       atomic_load(&failures), started);
	return started == nth && !atomic_load(&failures) ? 0 : 1;
}
