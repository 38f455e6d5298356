/* pkg_options.c: the options of RUN/packages/ (rk/vfs.h: declared here, checked at the
 * door by rk_vfs_open: a package.json that does not parse, a key that cannot sign) and
 * its README lines; view_packages.c's table points at them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/pkgdefs.h"
#include "engine/vfs_int.h"
#include "views/packages/packages.h"

enum { OPT_DEFS, OPT_MULTIARCH, OPT_SIGN_KEY, OPT_COMPRESS, NOPTS };
_Static_assert((int)NOPTS == (int)PKG_NOPTS, "packages.h counts the options");

/* clang-format off */
const struct rk_vfs_opt_decl pkg_opts[NOPTS] = {
	[OPT_DEFS] = {
		.name = "packages",
		.type = RK_VFS_OPT_FILE,
		.arg = "FILE",
		.help = "packages/: TheRock's package.json (or any file of its schema) instead "
			"of the built-in definitions",
		.man = "the native package definitions of `RUN/packages/`: TheRock's own "
		       "`build_tools/packaging/linux/package.json` (or any file of its schema) "
		       "instead of the built-in ones. Checked at mount time: a malformed entry is "
		       "refused with one line naming it, and rockfs exits 1.",
		.command = "packages",
	},
	[OPT_MULTIARCH] = {
		.name = "packages_multiarch",
		.type = RK_VFS_OPT_FLAG,
		.help = "packages/: a legacy (fat) run as the multi-arch set (host + per-arch "
			"device packages) from its kpack split",
		.man = "serve a legacy (fat) run's `RUN/packages/` as the multi-arch set (host "
		       "packages, per-architecture device packages, versioned metas) built from "
		       "the kpack split rockfs computes for `kpack/`, instead of TheRock's "
		       "single-arch set per family. Upstream cannot do this: its multi-arch set "
		       "needs a kpack-split build.",
		.command = "packages",
		.flag = "--multiarch",
	},
	[OPT_SIGN_KEY] = {
		.name = "sign_key",
		.type = RK_VFS_OPT_STRING,
		.arg = "KEY",
		.help = "packages/: sign the apt and dnf indexes (InRelease, Release.gpg, "
			"repomd.xml.asc) and every RPM's header with this GnuPG key",
		.man = "sign the indexes of `RUN/packages/` with the GnuPG key KEY (a fingerprint, "
		       "key id or user id of the daemon user's keyring, usable without a "
		       "passphrase prompt): `deb/dists/stable/InRelease` and `Release.gpg`, "
		       "`rpm/x86_64/repodata/repomd.xml.asc`; every RPM's header, as rpmsign "
		       "signs it (`gpg --detach-sign`, dated with the package's time), with the "
		       "public key at `rpm/RPM-GPG-KEY`. Checked at mount time with a test "
		       "signature. Without it the repositories are unsigned (`[trusted=yes]`, "
		       "`--setopt=REPO.gpgcheck=0`).",
		.command = "packages",
	},
	[OPT_COMPRESS] = {
		.name = "packages_compress",
		.type = RK_VFS_OPT_STRING,
		.arg = "none|zstd|xz",
		.choices = 1,
		.def = "none",
		.help = "packages/: DEB data.tar and RPM payload uncompressed (default), zstd "
			"or xz",
		.man = "how `RUN/packages/` compresses a package's files: `none` (default: "
		       "`data.tar` and the RPM's cpio payload uncompressed, served straight from "
		       "the cached files, no CPU), `zstd` (`data.tar.zst`, an RPM payload with "
		       "PAYLOADCOMPRESSOR zstd; level 3, as the `.tar.zst` tarballs) or `xz` "
		       "(`data.tar.xz`, PAYLOADCOMPRESSOR xz; level 6, dpkg-deb's). Compressed "
		       "in pieces of about 1 MiB (file data in 4 MiB pieces) kept in the cache "
		       "under what they hold, so a piece that another package or tarball already "
		       "holds is not compressed again; listing `deb/` or `rpm/x86_64/` compresses "
		       "what is not in the cache yet (on all cores), so every size is exact. "
		       "TheRock's own packages are compressed (DEB xz, RPM zstd level 9): for "
		       "a repository served over HTTP.",
		.command = "packages",
		.flag = "--compress",
	},
};
/* clang-format on */

const struct pkg_cfg *pkg_cfg(const struct rk_vfs *v)
{
	static const struct pkg_cfg none = {0};
	const struct pkg_cfg *c = vfs_config(v, "packages");

	return c ? c : &none;
}

void pkg_config_free(void *cfg)
{
	struct pkg_cfg *c = cfg;

	if (!c)
		return;
	free(c->defs);
	free(c->sign_key);
	free(c);
}

int pkg_config(const char *const *vals, const char *const *labels, void **cfg,
	       struct rk_err *err)
{
	struct pkg_cfg *c = calloc(1, sizeof(*c));
	int rc = c ? 0 : -ENOMEM;

	if (!rc && vals[OPT_DEFS]) {
		/* the message names the file and the entry */
		if (!(rc = rk_pkg_defs_check(vals[OPT_DEFS], err)) &&
		    !(c->defs = realpath(vals[OPT_DEFS], NULL))) /* the daemon leaves the cwd */
			rc = rk_err_set(err, -errno, "%s=%s: %s", labels[OPT_DEFS], vals[OPT_DEFS],
					strerror(errno));
	}
	if (!rc && vals[OPT_SIGN_KEY]) {
		struct rk_err serr = RK_ERR_INIT;

		if ((rc = rk_pkg_sign_check(vals[OPT_SIGN_KEY], &serr)))
			rc = rk_err_set(err, rc, "%s: %s", labels[OPT_SIGN_KEY],
					rk_err_str(&serr, rc));
		else if (!(c->sign_key = strdup(vals[OPT_SIGN_KEY])))
			rc = -ENOMEM;
	}
	if (c) {
		c->multiarch = vals[OPT_MULTIARCH] != NULL;
		c->compress = !vals[OPT_COMPRESS] || !strcmp(vals[OPT_COMPRESS], "none") ? 0
			      : !strcmp(vals[OPT_COMPRESS], "xz")			 ? PKG_XZ
											 : PKG_ZSTD;
	}
	if (rc) {
		pkg_config_free(c);
		return rc;
	}
	*cfg = c;
	return 0;
}

/* Its lines in the mount's README. */
const char pkg_readme[] =
	"  <run>/packages/        TheRock's DEB and RPM packages as an apt (deb/) and a dnf\n"
	"                         (rpm/x86_64/) repository, made on read\n";
