/* cli_progress.c: the progress line and the end summary of long commands
 * (cli_progress.h). Uses cli_util.h and the core library only. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/size.h"
#include "cli_progress.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fmt_time(double s, char *out, size_t n)
{
	unsigned long t = s < 0 ? 0 : (unsigned long)(s + 0.5);

	if (t >= 3600)
		snprintf(out, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(out, n, "%lu:%02lu", t / 60, t % 60);
}

void rp_progress_init(struct rp_progress *p, const struct rp_opts *o, const char *unit)
{
	*p = (struct rp_progress){.o = o, .unit = unit};
	p->tty = !o->quiet && isatty(STDERR_FILENO);
	p->start = now();
	p->last = p->start - 1; /* the first update draws */
}

static void draw(struct rp_progress *p, double t)
{
	double el = t - p->start, rate = el > 0 ? (double)p->bytes / el : 0;
	char done[32], total[32], r[32], when[32];

	rk_size_format(p->bytes, done, sizeof(done));
	rk_size_format((uint64_t)rate, r, sizeof(r));
	if (p->total_bytes) {
		int pct = (int)(100.0 * (double)p->bytes / (double)p->total_bytes);

		rk_size_format(p->total_bytes, total, sizeof(total));
		if (p->bytes >= p->total_bytes)
			fmt_time(0, when, sizeof(when));
		else if (rate > 0)
			fmt_time((double)(p->total_bytes - p->bytes) / rate, when, sizeof(when));
		else
			snprintf(when, sizeof(when), "--:--");
		fprintf(stderr, "\r%10s / %s  %3d%%  %llu/%llu %s  %s/s  ETA %s\033[K", done, total,
			pct > 100 ? 100 : pct, (unsigned long long)p->files,
			(unsigned long long)p->total_files, p->unit, r, when);
	} else {
		fmt_time(el, when, sizeof(when));
		fprintf(stderr, "\r%10s  %llu %s  %s/s  %s\033[K", done,
			(unsigned long long)p->files, p->unit, r, when);
	}
	fflush(stderr);
	p->drawn = rp_line_shown = 1;
	p->last = t;
}

static void maybe_draw(struct rp_progress *p)
{
	double t;

	if (!p->tty)
		return;
	t = now();
	/* a message took the line off: draw again now */
	if (t - p->last >= 0.25 || (p->drawn && !rp_line_shown))
		draw(p, t);
}

void rp_progress_add(struct rp_progress *p, uint64_t bytes, uint64_t files)
{
	p->bytes += bytes;
	p->files += files;
	maybe_draw(p);
}

void rp_progress_set(struct rp_progress *p, uint64_t bytes, uint64_t total_bytes, uint64_t files,
		     uint64_t total_files)
{
	p->bytes = bytes;
	p->total_bytes = total_bytes;
	p->files = files;
	p->total_files = total_files;
	maybe_draw(p);
}

void rp_progress_clear(struct rp_progress *p)
{
	(void)p;
	rp_clear_line();
	fflush(stderr);
}

void rp_progress_finish(struct rp_progress *p)
{
	/* the last state stays on the screen, as rsync leaves it */
	if (rp_line_shown && p->drawn) {
		draw(p, now());
		fputc('\n', stderr);
	}
	p->drawn = rp_line_shown = 0;
}

int rp_progress_end(struct rp_progress *p, int ret, const char *output, const char *extra,
		    const char *extra_json)
{
	double el = now() - p->start;
	char sz[32];

	rp_progress_finish(p);
	if (ret)
		return ret;
	if (p->o->json) {
		struct rk_buf b = RK_BUF_INIT;
		int rc = rk_buf_addf(&b, "{\"command\": \"%s\", \"%s\": %llu, \"bytes\": %llu",
				     p->o->command, p->unit, (unsigned long long)p->files,
				     (unsigned long long)p->bytes);

		if (!rc && p->dirs + p->links)
			rc = rk_buf_addf(&b, ", \"directories\": %llu, \"hardlinks\": %llu",
					 (unsigned long long)p->dirs, (unsigned long long)p->links);
		rc = rc || rk_buf_addf(&b, ", \"seconds\": %.3f, \"output\": ", el) ||
		     (output ? rk_buf_add_json_str(&b, output) : rk_buf_adds(&b, "null")) ||
		     rk_buf_addf(&b, "%s}\n", extra_json ? extra_json : "");
		if (rc)
			ret = rp_fail("out of memory");
		else
			fwrite(b.buf, 1, b.len, stdout);
		rk_buf_release(&b);
	} else if (!p->o->quiet) {
		rk_size_format(p->bytes, sz, sizeof(sz));
		fprintf(stderr, "%s: %llu %s (%s)", p->o->command, (unsigned long long)p->files,
			p->unit, sz);
		if (p->dirs + p->links)
			fprintf(stderr, ", %llu directories, %llu hardlinks",
				(unsigned long long)p->dirs, (unsigned long long)p->links);
		if (extra)
			fprintf(stderr, ", %s", extra);
		if (output)
			fprintf(stderr, " into %s", output);
		fputc('\n', stderr);
	}
	return ret;
}
