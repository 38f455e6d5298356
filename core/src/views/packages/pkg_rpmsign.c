/* pkg_rpmsign.c: with -o sign_key, every RPM's header signed as rpmsign signs it (into the
 * signature header's reserved space, formats/packages/rpm_layout.h) and the public key
 * served beside the repository (rpm/RPM-GPG-KEY), so dnf's gpgcheck=1 holds. gpg is run
 * as rpmsign runs it (no signing code of our own), over memory files (nothing is written
 * outside the cache); gpgme names the key. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/vfs_int.h"
#include "formats/packages/pkg_rules.h"
#include "formats/packages/rpm_layout.h"
#include "views/packages/packages.h"

extern char **environ;

/* A memory file (memfd: nothing is written outside the cache) holding data[0..len),
 * positioned at 0; -errno on failure. */
static int memfile(const char *name, const void *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), e;
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, (const char *)data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
			close(fd);
			return e;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET)) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* Run argv (a NULL-terminated list) with stdin from in_fd and stdout into out_fd, stderr
 * discarded; 0 when it exits 0, else -EIO (*status its wait status). */
static int run_gpg(char *const argv[], int in_fd, int out_fd, int *status)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = -posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return rc;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(*status) && !WEXITSTATUS(*status) ? 0 : -EIO;
}

/* An RPM header signature of data[0..len) by key, as rpmsign makes it: its
 * %__gpg_sign_cmd (gpg --detach-sign, binary, SHA-256, the subkey named exactly), dated
 * `when` (or the subkey's creation, if later) with --faked-system-time, so the bytes are
 * the same every time. The header goes to gpg and the signature comes back through
 * memory files. *out malloc'd, *tag the signature tag. */
static int sign_rpm(const char *key, long long when, const void *data, size_t len, char **out,
		    size_t *outlen, unsigned *tag, struct rk_err *err)
{
	char fpr[128], t[32];
	long long since = 0;
	int rc, in_fd, out_fd = -1, status = 0;
	struct stat st;

	if ((rc = pkg_sign_subkey(key, fpr, sizeof(fpr), tag, &since, err)))
		return rc;
	/* the signature's time: the package's (never before the key), so the bytes are the
	 * same from every mount */
	snprintf(t, sizeof(t), "%lld!", when > since ? when : since);
	if ((in_fd = memfile("rockfs-rpm-header", data, len)) < 0)
		return rk_err_set(err, in_fd, "rpm signature: memfd: %s", strerror(-in_fd));
	if ((out_fd = memfile("rockfs-rpm-signature", NULL, 0)) < 0) {
		close(in_fd);
		return rk_err_set(err, out_fd, "rpm signature: memfd: %s", strerror(-out_fd));
	}
	/* rpmsign's gpg command, with the time fixed */
	const char *words[] = {pkg_sign_gpg(),
			       "--batch",
			       "--no-tty",
			       "--quiet",
			       "--pinentry-mode",
			       "error",
			       "--no-armor",
			       "--digest-algo",
			       "sha256",
			       "--faked-system-time",
			       t,
			       "--local-user",
			       fpr,
			       "--detach-sign",
			       "--output",
			       "-"};
	enum { NW = sizeof(words) / sizeof(words[0]) };
	char *argv[NW + 1] = {0};

	for (size_t j = 0; !rc && j < NW; j++)
		if (!(argv[j] = strdup(words[j])))
			rc = -ENOMEM;
	if (!rc)
		rc = run_gpg(argv, in_fd, out_fd, &status);
	for (size_t j = 0; j < NW; j++)
		free(argv[j]);
	if (!rc)
		rc = fstat(out_fd, &st) || st.st_size <= 0 || st.st_size > 65536 ? -EIO : 0;
	if (!rc && !(*out = malloc((size_t)st.st_size)))
		rc = -ENOMEM;
	if (!rc && pread(out_fd, *out, (size_t)st.st_size, 0) != st.st_size) {
		free(*out);
		*out = NULL;
		rc = -EIO;
	}
	if (!rc)
		*outlen = (size_t)st.st_size;
	close(in_fd);
	close(out_fd);
	if (rc == -ENOMEM)
		return rk_err_set(err, rc, "signing the RPM header with '%s': out of memory", key);
	return rc ? rk_err_set(err, rc, "signing the RPM header with '%s' (gpg %s)", key,
			       WIFEXITED(status) ? "failed" : "killed")
		  : 0;
}

int pkg_rpm_sign(const struct rk_vfs *v, struct rk_composite *c, const struct rk_rpm_info *info,
		 int64_t when, struct rk_err *err)
{
	const char *key = pkg_cfg(v)->sign_key;
	unsigned char *hdr = NULL;
	char *sig = NULL;
	size_t hlen, slen;
	unsigned tag;
	int rc;

	if (!key)
		return 0;
	if ((rc = rk_rpm_sign_header(c, info, &hdr, &hlen)))
		return rk_err_set(err, rc, "the .rpm's header: %s", strerror(-rc));
	rc = sign_rpm(key, when, hdr, hlen, &sig, &slen, &tag, err);
	if (!rc && (rc = rk_rpm_set_signature(c, info, tag, sig, slen)))
		rk_err_set(err, rc, "the .rpm's signature (%zu bytes): %s", slen, strerror(-rc));
	free(hdr);
	free(sig);
	return rc;
}

int pkg_rpm_pubkey(const struct rk_vfs *v, struct node *dir, int64_t mtime, struct rk_err *err)
{
	const char *key = pkg_cfg(v)->sign_key;
	char *pub = NULL;
	size_t n;
	int rc;

	if (!key)
		return 0;
	if ((rc = pkg_sign_pubkey(key, &pub, &n, err)))
		return rc;
	if (!vfs_bytes_adopt(dir, PKG_RPM_KEY, S_IFREG | 0444, mtime, pub, n))
		return -ENOMEM; /* (adopt frees pub) */
	return 0;
}
