/* cli_progress.h: progress of long work on a terminal and the summary at its end
 * (cli_progress.c), for export, split, wheels, packages and prefetch. A leaf below the
 * commands: uses cli_util.h and the core library.
 *
 * On stderr, only when stderr is a terminal and -q is not given, one line redrawn in
 * place at most four times a second, as rsync --info=progress2 and zstd show it:
 *     1.2G  37 files  45.3M/s  0:12            (total unknown)
 *     1.2G / 3.4G  35%  12/40 files  45.3M/s  ETA 0:48
 * At the end, rp_progress_end() clears that line and prints the summary: with --json one
 * JSON object on stdout, else one line on stderr unless -q. */
#ifndef ROCKPACK_CLI_PROGRESS_H
#define ROCKPACK_CLI_PROGRESS_H

#include <stdint.h>

#include "cli_util.h"

struct rp_progress {
	const struct rp_opts *o;
	int tty; /* drawing on stderr */
	int drawn; /* a line is on the screen */
	double start, last; /* CLOCK_MONOTONIC seconds */
	uint64_t bytes, total_bytes; /* total 0: not known */
	uint64_t files, total_files, dirs, links;
	const char *unit; /* "files" or "artifacts" */
};

void rp_progress_init(struct rp_progress *p, const struct rp_opts *o, const char *unit);
/* Work done: bytes more, files more (redraws when due). */
void rp_progress_add(struct rp_progress *p, uint64_t bytes, uint64_t files);
/* Work done so far, as totals (prefetch's callback gives these). */
void rp_progress_set(struct rp_progress *p, uint64_t bytes, uint64_t total_bytes, uint64_t files,
		     uint64_t total_files);
/* Take the progress line off the screen (before a message on stderr). */
void rp_progress_clear(struct rp_progress *p);
/* Leave the last state of the line on the screen and end it (rp_progress_end does). */
void rp_progress_finish(struct rp_progress *p);
/* End of the work: clear the line; if ret is 0 print the summary for output (a
 * directory; may be NULL), with extra ("decompressed 3, ...") in the text line and
 * extra_json (", \"k\": v" members) in the JSON. Returns ret. */
int rp_progress_end(struct rp_progress *p, int ret, const char *output, const char *extra,
		    const char *extra_json);

#endif
