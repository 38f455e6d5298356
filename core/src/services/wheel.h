/* services/wheel.h: Python wheels built from members (PEP 427: dist-info, RECORD, laid out
 * as a zip composite over cache blobs, stored or deflated), the blobs a view writes from a
 * composite (pymade), and the pyhash/ records of python/. Used by the python view
 * (views/python/): its synthesized wheels, the kpack split of stored fat wheels and its
 * index. */
#ifndef RK_SERVICES_WHEEL_H
#define RK_SERVICES_WHEEL_H

#include "engine/vfs_int.h"
#include "rk/buf.h"
#include "rk/cache.h"

struct rk_composite;

/* A package file built (a wheel, or an sdist's bytes), as the python view serves it. */
struct pywheelz;
struct pysynth {
	char *file; /* "rocm_sdk_core-V-py3-none-linux_x86_64.whl", "rocm-V.tar.gz" */
	struct rk_composite *zip; /* a wheel, as a composite file (owned), or NULL */
	struct pywheelz *wz; /* -o wheel_compression=deflate: the wheel with its members
			      * deflated, made by pywheelz_make (owned; then zip is NULL and
			      * size UINT64_MAX), or NULL */
	char *bytes; /* the sdist's bytes (owned), or NULL */
	uint64_t size;
	char *meta; /* a wheel's METADATA (NUL-terminated), or NULL */
	size_t meta_len;
	char *from; /* what it is made of, for PROVENANCE */
	char key[RK_SHA256_HEX]; /* a wheel's identity: the digest of its composite */
	char family[64]; /* "": python/files/; else served in python/<family>/ only (a
			  * legacy run's per-family sdist and devel wheel, upstream's
			  * dist/<family>/) */
	struct artifact *made; /* the origin of a member the view wrote into the cache (the
				* devel wheel's _devel.tar: pymade_new), owned, or NULL */
	char *members; /* a wheel: the names of its members in a platform directory
			* ("_rocm_sdk_*\/...", but its own __init__.py: what a devel
			* tree links to), sorted, each NUL-terminated; or NULL */
	size_t members_len; /* bytes of members */
};
struct pysynth_set {
	struct pysynth *v;
	size_t n, cap;
};
/* A blob the view writes from composite c (taken over; name: for log lines), made by
 * pymade_write (its id; the first write is remembered under pyhash/) and again by the
 * returned artifact's refill once the cache evicted it: give that artifact as the
 * member's origin, keep it while the member is served (pysynth.made), free it with
 * pymade_free (NULL is fine). */
int pymade_new(struct rk_vfs *v, struct run *r, const char *name, struct rk_composite *c,
	       struct artifact **out);
int pymade_write(struct rk_vfs *v, struct artifact *made, char id[RK_SHA256_HEX],
		 struct rk_err *err);
void pymade_free(struct artifact *made);
struct pysynth *pysynth_push(struct pysynth_set *s);
void pysynth_release(struct pysynth_set *s);
/* Release the entries from n on (s->n becomes n). */
void pysynth_truncate(struct pysynth_set *s, size_t n);
/* A wheel built from members: blobs (content id, size), bytes (taken over;
 * NULL with no blob and no composite: an empty file) or composite files (borrowed until
 * pywheel_finish, whose CRC-32 and sha256 are computed once and remembered in the cache).
 * A second add of a name is ignored (the first wins, as the first copy does in a wheel
 * build). origin: the artifact whose blobs they are (a missing one is re-created).
 * pywheel_finish adds METADATA (Name, Version, Summary, Requires-Dist), WHEEL,
 * top_level.txt and RECORD and pushes the wheel "{dist}-{version}-{tag}.whl" to out. */
struct pyentry {
	char *name;
	uint32_t mode;
	uint64_t size;
	char blob[RK_SHA256_HEX]; /* "" for data */
	char *data;
	const struct rk_composite *composite; /* content as a composite file (borrowed) */
	struct artifact *origin;
	UT_hash_handle hh;
};
struct pywheel {
	struct pyentry *ents; /* by name */
	struct rk_buf sources; /* what it is made of, for PROVENANCE (when info.from is NULL) */
};
struct pywheel *pywheel_new(void);
void pywheel_free(struct pywheel *w);
void pywheel_release(struct pywheel *w); /* a pywheel that is not pywheel_new's */
int pywheel_add(struct pywheel *w, const char *name, uint32_t mode, uint64_t size, const char *blob,
		char *data, const struct rk_composite *composite, struct artifact *origin);
int pywheel_add_buf(struct pywheel *w, const char *name, struct rk_buf *b); /* b emptied */
int pywheel_add_str(struct pywheel *w, const char *name, const char *s);
struct pywheel_info {
	const char *dist, *version, *tag, *requires, *summary, *top_level, *from;
	const char *entry_points; /* dist-info/entry_points.txt, or NULL */
	int64_t mtime;
};
int pywheel_finish(struct rk_vfs *v, struct pywheel *w, const struct pywheel_info *in,
		   struct pysynth_set *out, struct rk_err *err);
/* A wheel with deflated members: the members' contents end to end, cut
 * into content-keyed pieces (cache/tar_compress.h), compressed or found in the cache on
 * the first pywheelz_make; the zip's headers need the compressed sizes, so its size is
 * known only then. pywheelz_make gives a new composite of the wheel each time (its
 * sources are the cached pieces, read through origins that compress a missing one
 * again); thread-safe; w must outlive it. */
int pywheelz_make(struct rk_vfs *v, struct pywheelz *w, struct rk_composite **out,
		  struct rk_err *err);
void pywheelz_free(struct pywheelz *w);
/* A composite's identity: the digest of its pieces (blob ids and literal bytes). */
int pywheel_composite_digest(const struct rk_composite *c, char hex[RK_SHA256_HEX]);
/* Open blob id (size bytes), re-created through origin when it is missing or damaged. */
int pywheel_blob_open(struct rk_vfs *v, const char *id, uint64_t size, struct artifact *origin,
		      int *fd, struct rk_err *err);
/* The record "pyhash/<kind><sha256 of kind, store id, path, size, mtime_ns>" of a stored
 * file's version (kind "" for its hash, "members-" for a wheel's member list). */
int vfs_pyhash_rel(struct rk_vfs *v, const char *kind, const char *path, uint64_t size,
		   int64_t mtime_ns, char rel[RK_MEMO_NAME]);

#endif
