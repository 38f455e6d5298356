/* pkg_compress.c: a package's data.tar or RPM payload compressed (-o packages_compress),
 * with the pieces of the compressed tarballs (services/tarz_file.h over
 * cache/tar_compress.h): each piece cached under what it holds, so a file that another
 * package or a tarball of the same codec and level already compressed costs nothing. */
#include <errno.h>
#include <stdlib.h>

#include "cache/tar_compress.h"
#include "services/tarz_file.h"
#include "views/packages/packages.h"

/* zstd at the tarballs' level (their pieces are shared); xz at dpkg-deb's default */
static const struct {
	int codec, level;
	const char *deb, *rpm, *flags;
} how_[] = {
	[PKG_ZSTD] = {RK_CODEC_ZSTD, 3, "data.tar.zst", "zstd", "3"},
	[PKG_XZ] = {RK_CODEC_XZ, 6, "data.tar.xz", "xz", "6"},
};

const char *pkg_z_deb_name(int how)
{
	return how_[how].deb;
}

const char *pkg_z_rpm_compressor(int how)
{
	return how_[how].rpm;
}

const char *pkg_z_rpm_flags(int how)
{
	return how_[how].flags;
}

int pkg_z_make(struct rk_vfs *v, int how, const struct rk_composite *plain, const char *where,
	       struct pkg_z *z, struct rk_err *err)
{
	int rc;

	pkg_z_release(z);
	if (how != PKG_ZSTD && how != PKG_XZ)
		return rk_err_set(err, -EINVAL, "'%s': no such compression %d", where, how);
	if (!(z->packed = calloc(1, sizeof(*z->packed))) || rk_composite_copy(plain, &z->plain)) {
		pkg_z_release(z);
		return rk_err_set(err, -ENOMEM, "'%s': out of memory", where);
	}
	rc = vfs_tarz_composite(v, z->plain, how_[how].codec, how_[how].level, where, &z->o,
				z->packed, err);
	if (rc)
		pkg_z_release(z);
	return rc;
}

void pkg_z_release(struct pkg_z *z)
{
	rk_composite_free(z->packed);
	vfs_tarz_origin_free(z->o);
	rk_composite_free(z->plain);
	*z = (struct pkg_z){0};
}
