/* pkg_scripts.c: the maintainer scripts of amdrocm-core and amdrocm-core-devel, written
 * for rockfs with the effect of TheRock's template/scripts/ (*.j2): after install
 * (postinst, configure) register the install prefix and its programs with
 * update-alternatives (/opt/rocm/core, /opt/rocm/core-{M}, /opt/rocm/{bin,lib,include,
 * llvm,amdgcn,libexec,share}, /usr/bin/<program>), priority from the version and the
 * minute of install so the newest of one version wins; before removal (prerm: remove,
 * upgrade) take them back. On RPM the prefix is $RPM_INSTALL_PREFIX0 (relocatable), and
 * %preun takes them back only on the last erase ($1 = 0): rpm runs an upgrade's (or a
 * reinstall's) new %post before the old %preun, whose removal would undo it (upstream's
 * non-Debian branch removes them on every %preun). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "views/packages/packages.h"

static const char *const core_programs =
	"hipcc hipconfig hipify-clang rocminfo amd-smi rocm_agent_enumerator rocm-smi "
	"rocprofv3 rocprofv3-avail rocgdb rocpd amdclang amdclang++ amdclang-cl amdclang-cpp "
	"amdflang amdlld";
static const char *const devel_programs = "MIOpenDriver";
/* /opt/rocm/<link> -> <prefix>/<dir> (alternative name rocm-<link>) */
static const char *const core_dirs = "bin lib include llvm amdgcn libexec share";

static int head(struct rk_buf *b, const char *prefix, int rpm)
{
	return rk_buf_addf(b,
			   "#!/bin/sh\n"
			   "# rockfs: TheRock's amdrocm maintainer script, same effect\n"
			   "prefix=%s\n"
			   "command -v update-alternatives >/dev/null || exit 0\n"
			   "debian_like() {\n"
			   "    [ -r /etc/os-release ] || return 1\n"
			   "    id_like=$(. /etc/os-release; echo \" ${ID_LIKE:-$ID} \")\n"
			   "    case $id_like in *\" debian \"*|*\" ubuntu \"*) return 0;; esac\n"
			   "    return 1\n"
			   "}\n",
			   rpm ? "\"$RPM_INSTALL_PREFIX0\"" : prefix);
}

char *pkg_script(const char *package, const char *which, const char *prefix, const char *version,
		 int rpm)
{
	int core = !strcmp(package, "amdrocm-core"), post = !strcmp(which, "postinst");
	unsigned major = 0, minor = 0, patch = 0;
	struct rk_buf b = RK_BUF_INIT;
	int rc;

	if (!core && strcmp(package, "amdrocm-core-devel"))
		return NULL;
	if (strcmp(which, "postinst") && strcmp(which, "prerm"))
		return NULL;
	sscanf(version, "%u.%u.%u", &major, &minor, &patch);
	rc = head(&b, prefix, rpm);
	if (!rc && post)
		rc = rk_buf_addf(&b,
				 "case \"$1\" in\n"
				 "    configure|[0-9]*) ;;\n"
				 "    abort-upgrade|abort-remove|abort-deconfigure) echo \"$1\"; exit 0;;\n"
				 "    *) debian_like && exit 0;;\n"
				 "esac\n"
				 "# the version's rank, then minutes since 2020-09-13: newest install wins\n"
				 "score=$(( ((%u - 3) * 14 + %u) * 14 + %u ))\n"
				 "score=$(( score * 1000000 + ($(date -u +%%s) - 1600000000) / 60 ))\n",
				 major, minor, patch);
	else if (!rc) /* RPM %preun 1: an upgrade or reinstall, after the new %post */
		rc = rk_buf_adds(&b, "case \"$1\" in\n"
				     "    remove|upgrade|0) ;;\n"
				     "    1) exit 0;;\n"
				     "    *) debian_like && exit 0;;\n"
				     "esac\n");
	if (!rc && core && post)
		rc = rk_buf_addf(&b,
				 "update-alternatives --install /opt/rocm/core core \"$prefix\" $score\n"
				 "update-alternatives --install /opt/rocm/core-%u core-%u \"$prefix\" "
				 "$score\n"
				 "for d in %s; do\n"
				 "    update-alternatives --install /opt/rocm/$d rocm-$d \"$prefix/$d\" "
				 "$score\n"
				 "done\n",
				 major, major, core_dirs);
	if (!rc && core && !post)
		rc = rk_buf_addf(&b,
				 "update-alternatives --remove core \"$prefix\" || true\n"
				 "update-alternatives --remove core-%u \"$prefix\" || true\n"
				 "for d in %s; do\n"
				 "    update-alternatives --remove rocm-$d \"$prefix/$d\" || true\n"
				 "done\n",
				 major, core_dirs);
	if (!rc && post)
		rc = rk_buf_addf(&b,
				 "for p in %s; do\n"
				 "    if [ -e \"$prefix/bin/$p\" ]; then\n"
				 "        update-alternatives --install /usr/bin/$p $p \"$prefix/bin/$p\" "
				 "$score\n"
				 "    else\n"
				 "        echo \"$prefix/bin/$p not found, but that is OK\" >&2\n"
				 "    fi\n"
				 "done\n"
				 "true\n",
				 core ? core_programs : devel_programs);
	else if (!rc)
		rc = rk_buf_addf(&b,
				 "for p in %s; do\n"
				 "    update-alternatives --remove $p \"$prefix/bin/$p\" || true\n"
				 "done\n",
				 core ? core_programs : devel_programs);
	if (rc) {
		rk_buf_release(&b);
		return NULL;
	}
	return rk_buf_detach(&b, NULL);
}
