/* gpu_targets.c: the family -> target table of therock-formats.md section 4.
 *
 * This is the only place the table lives. Each row is one
 * therock_add_amdgpu_target() call: target, product, FAMILY list. Every target is
 * also its own family. */
#include <errno.h>
#include <string.h>

#include "rk/compiler.h"
#include "rk/gpu.h"

static const struct rk_gpu_target targets[] = {
	{"gfx900", "Vega 10 / MI25", "dgpu-all gfx900-dgpu"},
	{"gfx90c", "AMD Renoir/Lucienne/Cezanne iGPU", "igpu-all gfx90c-igpu"},
	{"gfx906", "Radeon VII / MI50 CDNA", "dgpu-all gfx906-dgpu"},
	{"gfx908", "MI100 CDNA", "dcgpu-all gfx908-dcgpu"},
	{"gfx90a", "MI210/250 CDNA", "dcgpu-all gfx90a-dcgpu"},
	{"gfx942", "MI300A/MI300X CDNA", "dcgpu-all gfx94X-all gfx94X-dcgpu"},
	{"gfx950", "MI350X/MI355X CDNA", "dcgpu-all gfx950-all gfx950-dcgpu"},
	{"gfx1010", "AMD RX 5700", "dgpu-all gfx101X-all gfx101X-dgpu"},
	{"gfx1011", "AMD Radeon Pro V520", "dgpu-all gfx101X-all gfx101X-dgpu"},
	{"gfx1012", "AMD RX 5500", "dgpu-all gfx101X-all gfx101X-dgpu"},
	{"gfx1030", "AMD RX 6800 / XT", "dgpu-all gfx103X-all gfx103X-dgpu"},
	{"gfx1031", "AMD RX 6700 / XT", "dgpu-all gfx103X-all gfx103X-dgpu"},
	{"gfx1032", "AMD RX 6600", "dgpu-all gfx103X-all gfx103X-dgpu"},
	{"gfx1033", "AMD Van Gogh iGPU", "igpu-all gfx103X-all gfx103X-igpu"},
	{"gfx1034", "AMD RX 6500 XT", "dgpu-all gfx103X-all gfx103X-dgpu"},
	{"gfx1035", "AMD Radeon 680M Laptop iGPU", "igpu-all gfx103X-all gfx103X-igpu"},
	{"gfx1036", "AMD Raphael iGPU", "igpu-all gfx103X-all gfx103X-igpu"},
	{"gfx1100", "AMD RX 7900 XTX", "dgpu-all gfx110X-all gfx110X-dgpu"},
	{"gfx1101", "AMD RX 7800 XT", "dgpu-all gfx110X-all gfx110X-dgpu"},
	{"gfx1102", "AMD RX 7700S/Framework Laptop 16", "dgpu-all gfx110X-all gfx110X-dgpu"},
	{"gfx1103", "AMD Radeon 780M Laptop iGPU", "igpu-all gfx110X-all gfx110X-igpu"},
	{"gfx1150", "AMD Strix Point iGPU", "igpu-all gfx115X-all gfx115X-igpu"},
	{"gfx1151", "AMD Strix Halo iGPU", "igpu-all gfx115X-all gfx115X-igpu"},
	{"gfx1152", "AMD Krackan 1 iGPU", "igpu-all gfx115X-all gfx115X-igpu"},
	{"gfx1153", "AMD Radeon 820M iGPU", "igpu-all gfx115X-all gfx115X-igpu"},
	{"gfx1200", "AMD RX 9060 / XT", "dgpu-all gfx120X-all"},
	{"gfx1201", "AMD RX 9070 / XT", "dgpu-all gfx120X-all"},
	{"gfx1250", "AMD Instinct MI450/MI450X/MI455X CDNA", "dcgpu-all gfx125X-all gfx125X-dcgpu"},
};

static const char *const release_families[] = {
	"gfx94X-dcgpu", "gfx110X-all", "gfx1151", "gfx120X-all",   "gfx90a",	   "gfx950-dcgpu",
	"gfx900",	"gfx90c",      "gfx906",  "gfx908",	   "gfx101X-dgpu", "gfx103X-all",
	"gfx1150",	"gfx1152",     "gfx1153", "gfx125X-dcgpu", NULL,
};

const char *const *rk_gpu_release_families(void)
{
	return release_families;
}

const struct rk_gpu_target *rk_gpu_targets(size_t *count)
{
	*count = RK_ARRAY_SIZE(targets);
	return targets;
}

const struct rk_gpu_target *rk_gpu_target_find(const char *name)
{
	for (size_t i = 0; i < RK_ARRAY_SIZE(targets); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

/* True when the space-separated list has word w. */
static int list_has(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");

		if (len == n && !memcmp(p, w, n))
			return 1;
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

int rk_gpu_is_family(const char *name)
{
	for (size_t i = 0; i < RK_ARRAY_SIZE(targets); i++)
		if (!strcmp(targets[i].name, name) || list_has(targets[i].families, name))
			return 1;
	return 0;
}

int rk_gpu_base_arch(const char *t, char *out, size_t n)
{
	size_t len = strcspn(t, ":");

	if (len + 1 > n)
		return -ENAMETOOLONG;
	memcpy(out, t, len);
	out[len] = '\0';
	return (int)len;
}

int rk_gpu_family_has(const char *family, const char *t)
{
	char base[64], fbase[64];
	const struct rk_gpu_target *g;

	if (rk_gpu_base_arch(t, base, sizeof(base)) < 0 ||
	    rk_gpu_base_arch(family, fbase, sizeof(fbase)) < 0)
		return 0;
	if (!strcmp(base, fbase))
		return 1;
	g = rk_gpu_target_find(base);
	return g && list_has(g->families, family);
}
