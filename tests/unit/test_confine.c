/* test_confine.c: the output rule (services/confine.h) on private trees. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "engine/vfs_int.h"
#include "services/confine.h"
#include "rk_test.h"

/* Add path to private root: 'd' directory, 'f' file, else a symlink to target. */
static void put(struct node *root, char type, const char *path, const char *target)
{
	const char *base;
	struct node *d = vfs_mkdirs(root, path, &base, 0), *n;
	uint32_t mode = type == 'd' ? S_IFDIR | 0755 : type == 'f' ? S_IFREG | 0644 : S_IFLNK | 0777;

	RK_ASSERT(d != NULL);
	n = target ? vfs_symlink(d, base, 0, target) : vfs_node_add(d, base, mode, 0);
	RK_ASSERT(n != NULL);
}

static int has(struct node *root, const char *path)
{
	return vfs_find(root, path) != NULL;
}

RK_TEST(links_above_the_root_dropped)
{
	struct node *root = vfs_tree_new("", S_IFDIR | 0755, 0);

	put(root, 'f', "share/doc.txt", NULL);
	put(root, 'l', "share/ok", "doc.txt");
	put(root, 'l', "share/up", "../..");	       /* above */
	put(root, 'l', "share/top", "..");	       /* the root itself: inside */
	put(root, 'l', "share/abs", "/etc/passwd");    /* absolute */
	put(root, 'l', "b", "share/top");	       /* b -> share/top -> the root */
	put(root, 'l', "c", "b/share/../..");	       /* through b: above */
	put(root, 'l', "d", "missing/x/../..");	       /* lexical below missing: inside */
	put(root, 'l', "e", "missing/../..");	       /* lexical: above */
	put(root, 'l', "loop", "loop");
	put(root, 'l', "share/deep/tail", "../../b/share/ok");

	RK_ASSERT_EQ_INT(5, vfs_confine(root, NULL, "test"));
	RK_ASSERT(has(root, "share/ok") && has(root, "share/top") && has(root, "b") &&
		  has(root, "d") && has(root, "share/deep/tail"));
	RK_ASSERT(!has(root, "share/up") && !has(root, "share/abs") && !has(root, "c") &&
		  !has(root, "e") && !has(root, "loop"));
	/* what is kept obeys the rule: a second pass drops nothing */
	RK_ASSERT_EQ_INT(0, vfs_confine(root, NULL, "test"));
	RK_ASSERT(!vfs_link_leaves(root, "share/ok", "doc.txt"));
	RK_ASSERT_EQ_STR("symlink resolves above the tree's root",
			 vfs_link_leaves(root, "share/x", "../../y"));
	vfs_tree_free(root);
}

RK_TEST(a_link_escaping_only_after_a_drop_goes_too)
{
	struct node *root = vfs_tree_new("", S_IFDIR | 0755, 0);

	/* a/b/l resolves through x/dir/, which a name check drops: the second pass sees
	 * x/dir missing and x/dir/... lexically, one level shallower */
	put(root, 'l', "a/l", "../x/bad\x01/y/../../../..");
	put(root, 'l', "x/bad\x01/y", "../../x/bad\x01/z/w");
	RK_ASSERT(vfs_confine(root, NULL, "test") >= 1);
	RK_ASSERT_EQ_INT(0, vfs_confine(root, NULL, "test"));
	vfs_tree_free(root);
}

RK_TEST(package_cut_from_its_set)
{
	struct node *pkg = vfs_tree_new("", S_IFDIR | 0755, 0);
	struct node *set = vfs_tree_new("", S_IFDIR | 0755, 0);

	/* this package: share/sd -> .. (inside it); another package: share/sd/etc/evil */
	put(pkg, 'l', "opt/rocm/share/sd", "..");
	put(pkg, 'f', "opt/rocm/share/doc.txt", NULL);
	put(pkg, 'l', "opt/rocm/share/lnk", "lnk2");
	put(pkg, 'f', "opt/rocm/share/under/f", NULL);
	put(set, 'f', "opt/rocm/share/sd/etc/evil", NULL);
	put(set, 'f', "opt/rocm/share/doc.txt", NULL);
	put(set, 'l', "opt/rocm/share/lnk2", "../../../..");
	put(set, 'l', "opt/rocm/share/under", "..");

	/* sd: a directory in the set; lnk resolves above through the set's lnk2; under is
	 * a link in the set (nothing may go below it) */
	RK_ASSERT_EQ_INT(3, vfs_confine(pkg, set, "test"));
	RK_ASSERT(!has(pkg, "opt/rocm/share/sd") && !has(pkg, "opt/rocm/share/lnk") &&
		  !has(pkg, "opt/rocm/share/under"));
	RK_ASSERT(has(pkg, "opt/rocm/share/doc.txt"));
	vfs_tree_free(pkg);
	vfs_tree_free(set);
}

RK_TEST(hardlinked_file_freed_with_its_last_name)
{
	struct node *root = vfs_tree_new("", S_IFDIR | 0755, 0);
	struct node *d = vfs_node_add(root, "d", S_IFDIR | 0755, 0);
	struct node *f = vfs_node_add(d, "ok", S_IFREG | 0644, 0);

	RK_ASSERT(f != NULL);
	RK_ASSERT_EQ_INT(0, vfs_dent_add(d, "bad\n", f));
	vfs_node_nlink_add(f, 1);
	RK_ASSERT_EQ_INT(1, vfs_confine(root, NULL, "test"));
	RK_ASSERT(has(root, "d/ok"));
	RK_ASSERT_EQ_INT(1, (int)vfs_node_nlink(f));
	vfs_tree_free(root); /* ASan: nothing leaks, nothing freed twice */
}
