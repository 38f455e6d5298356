/* confine.c: the one rule for what a generated tree may hold (confine.h), applied where
 * the trees are made: the flatten (dist/, tarballs/, the wheels the python view
 * synthesizes, each package's files) and the package views (against their set).
 *
 * A symlink is resolved as the kernel resolves it once the tree is unpacked: component by
 * component from the link's directory, through the tree's directories and symlinks (at
 * most LINK_HOPS of them: a loop is dropped as well). Where the tree has no such entry
 * the rest is lexical: a directory could be made there later (by another package, or the
 * admin), so only the ".." count may be trusted. A file in the middle of a path fails
 * (ENOTDIR) in the kernel; it is taken lexically too, which can only be stricter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/log.h"
#include "rk/path.h"
#include "engine/vfs_int.h"
#include "services/confine.h"
#include "util/array.h"

#define LINK_HOPS 40 /* Linux's MAXSYMLINKS */

static const char LEAVES[] = "symlink resolves above the tree's root";
static const char ABSOLUTE[] = "symlink to an absolute path";
static const char LOOPS[] = "symlink loop";

/* The directories from the root down (NULL where the tree has none), as a stack. */
struct dirs {
	const struct node **v;
	size_t n, cap;
};

static int dirs_push(struct dirs *d, const struct node *n)
{
	if (RK_GROW(d->v, d->cap, d->n, 32))
		return -ENOMEM;
	d->v[d->n++] = n;
	return 0;
}

/* Resolve target from the directory on top of *d (d->n >= 1; d->v[0] is the root). *why
 * is NULL when it stays inside. d is consumed (changed). 0 or -ENOMEM. */
static int resolve(struct dirs *d, const char *target, const char **why)
{
	char *todo = strdup(target), *p;
	unsigned hops = 0;
	int rc = 0;

	*why = NULL;
	if (!todo)
		return -ENOMEM;
	if (todo[0] == '/' || !todo[0]) {
		*why = ABSOLUTE;
		free(todo);
		return 0;
	}
	for (p = todo; !rc && !*why && *p;) {
		size_t c = strcspn(p, "/");
		const struct node *top = d->v[d->n - 1], *next;
		char saved = p[c];

		if (c == 0 || (c == 1 && p[0] == '.')) {
			/* nothing */
		} else if (c == 2 && p[0] == '.' && p[1] == '.') {
			if (d->n == 1)
				*why = LEAVES;
			else
				d->n--;
		} else {
			p[c] = '\0';
			next = top && S_ISDIR(vfs_node_mode(top))
				       ? vfs_dent_find((struct node *)top, p)
				       : NULL;
			p[c] = saved;
			if (next && S_ISLNK(vfs_node_mode(next))) {
				/* the rest of the path now starts with the link's target */
				const char *t = vfs_node_target(next) ? vfs_node_target(next) : "";
				char *rest = p + c, *nt;
				size_t tl = strlen(t), rl = strlen(rest);

				if (++hops > LINK_HOPS) {
					*why = LOOPS;
					break;
				}
				if (t[0] == '/' || !t[0]) {
					*why = ABSOLUTE;
					break;
				}
				if (!(nt = malloc(tl + rl + 2))) {
					rc = -ENOMEM;
					break;
				}
				memcpy(nt, t, tl);
				nt[tl] = '/';
				memcpy(nt + tl + 1, rest, rl + 1);
				free(todo);
				p = todo = nt;
				continue;
			}
			rc = dirs_push(d, next && S_ISDIR(vfs_node_mode(next)) ? next : NULL);
		}
		p += c;
		while (*p == '/')
			p++;
	}
	free(todo);
	return rc;
}

/* A copy of the stack s, to resolve from (resolve consumes its stack). */
static int dirs_copy(const struct dirs *s, struct dirs *out)
{
	out->n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (dirs_push(out, s->v[i]))
			return -ENOMEM;
	return 0;
}

const char *vfs_link_leaves(const struct node *root, const char *rel, const char *target)
{
	struct dirs d = {0};
	const char *why = "out of memory";
	const struct node *at = root;
	char *path = strdup(rel), *p, *slash;

	if (!path || dirs_push(&d, root))
		goto out;
	/* the link's directories: rel without its last component */
	for (p = path; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		at = at && S_ISDIR(vfs_node_mode(at)) && *p ? vfs_dent_find((struct node *)at, p)
							    : at;
		if (*p && dirs_push(&d, at && S_ISDIR(vfs_node_mode(at)) ? at : NULL))
			goto out;
	}
	if (resolve(&d, target, &why))
		why = "out of memory";
out:
	free(d.v);
	free(path);
	return why;
}

struct confine {
	const struct node *set;
	const char *what;
	struct rk_buf rel;
	struct dirs own, setdirs, scratch;
	int dropped;
};

static void drop(struct confine *c, struct node *dir, const char *name, const struct node *n,
		 const char *why)
{
	struct rk_buf shown = RK_BUF_INIT, tgt = RK_BUF_INIT;
	int link = S_ISLNK(vfs_node_mode(n)) && vfs_node_target(n);
	struct node *gone;

	if (rk_buf_add_shown(&shown, c->rel.buf) ||
	    (link && rk_buf_add_shown(&tgt, vfs_node_target(n))))
		rk_warn("%s: an entry dropped: %s", c->what, why);
	else if (link)
		rk_warn("%s: '%s' -> '%s' dropped: %s", c->what, shown.buf, tgt.buf, why);
	else
		rk_warn("%s: '%s' dropped: %s", c->what, shown.buf, why);
	rk_buf_release(&shown);
	rk_buf_release(&tgt);
	gone = vfs_dent_del(dir, name);
	if (gone && (S_ISDIR(vfs_node_mode(gone)) || !vfs_node_nlink_add(gone, -1)))
		vfs_tree_free(gone);
	c->dropped++;
}

/* Confine directory dir (c->own's top), whose counterpart in the set is sdir (NULL: the
 * set has none). */
static int walk(struct confine *c, struct node *dir, const struct node *sdir)
{
	size_t rlen = c->rel.len, i = 0;
	int rc = 0;

	while (!rc && i < vfs_dir_count(dir)) {
		struct node *n = vfs_dir_node(dir, i);
		const char *name = vfs_dir_name(dir, i), *why = NULL;
		const struct node *sn = NULL;

		if (c->rel.alloc) {
			c->rel.len = rlen;
			c->rel.buf[rlen] = '\0';
		}
		if ((rc = rk_buf_addf(&c->rel, "%s%s", rlen ? "/" : "", name)))
			break;
		if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
			why = "not a name";
		else if (!(why = rk_path_unwritable(c->rel.buf)) && c->set) {
			sn = sdir ? vfs_dent_find((struct node *)sdir, name) : NULL;
			if (sn && S_ISDIR(vfs_node_mode(sn)) && !S_ISDIR(vfs_node_mode(n)))
				why = "a directory in another package of the set";
			else if (sn && !S_ISDIR(vfs_node_mode(sn)) && S_ISDIR(vfs_node_mode(n)))
				why = "a symlink or file in another package of the set";
		}
		if (!why && S_ISLNK(vfs_node_mode(n))) {
			struct dirs *from = c->set ? &c->setdirs : &c->own;

			if ((rc = dirs_copy(from, &c->scratch)) ||
			    (rc = resolve(&c->scratch, vfs_node_target(n) ? vfs_node_target(n) : "",
					  &why)))
				break;
		}
		if (why) {
			drop(c, dir, name, n, why);
			continue; /* the next entry moved to i */
		}
		if (S_ISDIR(vfs_node_mode(n))) {
			const struct node *sub = sn && S_ISDIR(vfs_node_mode(sn)) ? sn : NULL;

			if ((rc = dirs_push(&c->own, n)) || (rc = dirs_push(&c->setdirs, sub)))
				break;
			rc = walk(c, n, sub);
			c->own.n--;
			c->setdirs.n--;
		}
		i++;
	}
	if (c->rel.alloc) {
		c->rel.len = rlen;
		c->rel.buf[rlen] = '\0';
	}
	return rc;
}

int vfs_confine(struct node *root, const struct node *set, const char *what)
{
	struct confine c = {.set = set, .what = what, .rel = RK_BUF_INIT};
	int rc = 0, before;

	/* until a pass drops nothing: a link checked early in a pass resolved through
	 * entries a later check dropped, so only a pass with no drop checked every kept
	 * link against the tree as it is given back */
	do {
		before = c.dropped;
		c.own.n = c.setdirs.n = 0;
		if (!(rc = dirs_push(&c.own, root)) && !(rc = dirs_push(&c.setdirs, set)))
			rc = walk(&c, root, set);
	} while (!rc && c.dropped > before);
	rk_buf_release(&c.rel);
	free(c.own.v);
	free(c.setdirs.v);
	free(c.scratch.v);
	return rc ? rc : c.dropped;
}
