/* fuzz_pkg_rules.c: package.json from untrusted bytes (pkg_defs_parse), and the plans of
 * what parses over a small kpack and a small single-arch run, DEB and RPM; the bytes as
 * every relation field of a DEB's control (deb_layout.c's dpkg-gencontrol rewrite), and
 * each DEB plan's control. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/packages/deb_layout.h"
#include "formats/packages/pkg_meta.h"
#include "formats/packages/pkg_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const lines[] = {"math-libs/rocFFT/stage", "core/clr/stage", ""};
static const struct pkg_artdir dirs[] = {
	{"fft", "lib", "generic", lines, 3},	      {"fft", "lib", "gfx1100", lines, 1},
	{"fft", "lib", "gfx942:xnack+", lines, 1},    {"core-hip", "lib", "generic", lines + 1, 1},
	{"a_lib_b", "dev", "gfx94X-dcgpu", lines, 2},
};
static const char *const archs[] = {"gfx1100", "gfx942"};

/* The control of package name with these relations: NULL only for a field with a new
 * line (EINVAL) or out of memory; else a text that ends its Description. */
static void control(const char *name, const char *rel, const char *depends)
{
	struct rk_pkg_meta m = {.name = name,
				.version = "7.1.0",
				.release = "9",
				.arch = "amd64",
				.maintainer = "m <m@x>",
				.summary = "s",
				.description = "d",
				.section = "",
				.priority = "",
				.homepage = "",
				.license = "",
				.vendor = "",
				.group = "",
				.prefix = "/opt/rocm",
				.depends = depends,
				.recommends = rel,
				.suggests = rel,
				.provides = rel,
				.replaces = rel,
				.conflicts = rel,
				.obsoletes = ""};
	char *c = rk_deb_control(&m);

	if (!c && errno != EINVAL && errno != ENOMEM)
		abort();
	if (c && !strstr(c, "Description: s\n d\n"))
		abort();
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkg_defs d;
	struct rk_err err = RK_ERR_INIT;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	control("p", text, text);
	free(text);

	if (pkg_defs_parse((const char *)data, size, &d, &err)) {
		if (!err.msg[0] && err.code != 0)
			abort(); /* a failure always says why, except out of memory */
		return 0;
	}
	for (int mode = 0; mode < 4; mode++) {
		struct pkg_run run = {dirs,
				      5,
				      mode & 1,
				      archs,
				      (mode & 1) ? 2 : 1,
				      "7.1.0",
				      "9",
				      (mode & 2) ? PKG_RPM : PKG_DEB,
				      mode == 3};
		struct pkg_plan p;

		if (pkg_plan_make(&d, &run, &p, &err))
			continue;
		for (size_t i = 0; i < p.n; i++) {
			if (!p.pkgs[i].name[0] || !p.pkgs[i].depends)
				abort();
			if (run.type == PKG_DEB)
				control(p.pkgs[i].name, "", p.pkgs[i].depends);
			for (size_t j = 0; j < i; j++)
				if (!strcmp(p.pkgs[i].name, p.pkgs[j].name))
					abort(); /* names are unique */
			for (size_t s = 0; s < p.pkgs[i].nsources; s++)
				if (p.pkgs[i].sources[s].dir >= run.ndirs ||
				    p.pkgs[i].sources[s].line >=
					    dirs[p.pkgs[i].sources[s].dir].nlines)
					abort();
		}
		pkg_plan_release(&p);
	}
	pkg_defs_release(&d);
	return 0;
}
