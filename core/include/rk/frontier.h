/* rk/frontier.h: how much of a file being written may be read yet.
 *
 * An ingest writes an archive member into a cache file while readers already serve it
 * (a 1 GB library streams while it is decompressed). The writer advances the frontier
 * after each write: bytes [0, done) are final. It ends the frontier once the file is
 * whole, and fails it when the file, or later the archive it came from, turns out bad:
 * from then on every wait returns the failure, also for bytes below the frontier, so a
 * reader never goes on reading what a corrupt archive gave without an error.
 *
 * Reference counted: the writer holds one reference, each reader (a published node, an
 * open file) its own. Thread-safe. */
#ifndef RK_FRONTIER_H
#define RK_FRONTIER_H

#include <stdint.h>

struct rk_frontier;

/* A frontier at 0 of a file that will hold size bytes; NULL when out of memory. */
struct rk_frontier *rk_frontier_new(uint64_t size);
struct rk_frontier *rk_frontier_get(struct rk_frontier *f);
void rk_frontier_put(struct rk_frontier *f);

/* Writer: bytes [0, done) are written (done only grows). */
void rk_frontier_advance(struct rk_frontier *f, uint64_t done);
/* Writer: the file is whole (rc 0), or is bad (rc < 0, final: a later end cannot undo a
 * failure). Wakes every waiter. */
void rk_frontier_end(struct rk_frontier *f, int rc);

/* Reader: wait until bytes [0, want) may be read (want is capped at the file's size).
 * 0, or the failure the writer ended with. */
int rk_frontier_wait(struct rk_frontier *f, uint64_t want);

#endif
