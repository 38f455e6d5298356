/* fuzz_confine.c: the shared output validator (services/confine.h) on trees built from
 * arbitrary bytes. One entry a line: a type letter, the path, for a link a TAB and its
 * target: 'd' directory, 'f' file, 'l' symlink of the tree; 'D', 'F', 'L' the same in the
 * package set (when the set gets any entry, the tree is confined against it).
 * Invariants: after vfs_confine, a second call drops nothing; every symlink left
 * resolves inside the tree (vfs_link_leaves in the set, when there is one); no name left
 * is one rk_path_unwritable refuses. Nothing leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "rk/path.h"
#include "engine/vfs_int.h"
#include "services/confine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add(struct node *root, char type, char *path)
{
	char *target = NULL, *tab = strchr(path, '\t');
	const char *base;
	struct node *dir, *n;
	uint32_t mode = type == 'd' ? S_IFDIR | 0755 : type == 'f' ? S_IFREG | 0644 : S_IFLNK | 0777;

	if (tab) {
		*tab = '\0';
		target = tab + 1;
	}
	if (type == 'l' && !target)
		return;
	if (!(dir = vfs_mkdirs(root, path, &base, 0)) || !*base || vfs_dent_find(dir, base))
		return;
	n = type == 'l' ? vfs_symlink(dir, base, 0, target) : vfs_node_add(dir, base, mode, 0);
	(void)n;
}

/* Every entry below dir (path rel) obeys the rule in the finished tree. */
static void check(const struct node *root, const struct node *set, const struct node *dir,
		  char *rel, size_t len)
{
	for (size_t i = 0; i < vfs_dir_count(dir); i++) {
		const struct node *n = vfs_dir_node(dir, i);
		const char *name = vfs_dir_name(dir, i);
		size_t nl = strlen(name), l = len + (len ? 1 : 0) + nl;

		if (l > 8192)
			continue;
		if (len)
			rel[len] = '/';
		memcpy(rel + len + (len ? 1 : 0), name, nl + 1);
		if (rk_path_unwritable(rel))
			abort();
		if (S_ISLNK(vfs_node_mode(n)) &&
		    vfs_link_leaves(set ? set : root, rel, vfs_node_target(n)))
			abort();
		if (S_ISDIR(vfs_node_mode(n)))
			check(root, set, n, rel, l);
		rel[len] = '\0';
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct node *root = vfs_tree_new("", S_IFDIR | 0755, 0);
	struct node *set = vfs_tree_new("", S_IFDIR | 0755, 0);
	char *text = malloc(size + 1), *line, *next, *rel = malloc(8192 + 300);
	int used = 0;

	rk_log_level = -1; /* every drop logs a line: not wanted here */
	if (!root || !set || !text || !rel)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!*line || !strchr("dflDFL", line[0]))
			continue;
		if (line[0] >= 'a') {
			add(root, line[0], line + 1);
		} else {
			add(set, (char)(line[0] - 'A' + 'a'), line + 1);
			used = 1;
		}
	}
	if (vfs_confine(root, used ? set : NULL, "fuzz") < 0)
		goto out;
	if (vfs_confine(root, used ? set : NULL, "fuzz") != 0)
		abort();
	rel[0] = '\0';
	check(root, used ? set : NULL, root, rel, 0);
out:
	vfs_tree_free(root);
	vfs_tree_free(set);
	free(text);
	free(rel);
	return 0;
}
