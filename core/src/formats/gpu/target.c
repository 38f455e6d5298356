/* target.c: AMDGPU target IDs and the target of a code object (kpack-format.md 5.4, 6, 7). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/target.h"
#include "util/le.h"

#define TRIPLE_PREFIX "amdgcn-amd-amdhsa--"
#define MAX_FEATURES 8 /* a target ID names at most this many features */

struct feature {
	const char *name; /* not NUL-terminated */
	size_t len;
	char sign; /* '+' or '-' */
};

struct parsed {
	const char *proc;
	size_t proc_len;
	struct feature f[MAX_FEATURES];
	size_t nf;
};

static const char *strip_prefix(const char *id)
{
	size_t n = sizeof(TRIPLE_PREFIX) - 1;

	return strncmp(id, TRIPLE_PREFIX, n) == 0 && id[n] ? id + n : id;
}

static int is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Split "<proc>(:<feature>(+|-))*" into p. strict also wants a "gfx" processor of
 * [a-z0-9-] and features of [a-z0-9_] named at most once. */
static int parse(const char *id, struct parsed *p, int strict)
{
	const char *s = id, *colon;

	memset(p, 0, sizeof(*p));
	if (strlen(id) >= RK_TARGET_MAX)
		return -EINVAL;
	colon = strchr(s, ':');
	p->proc = s;
	p->proc_len = colon ? (size_t)(colon - s) : strlen(s);
	if (p->proc_len == 0)
		return -EINVAL;
	if (strict) {
		if (p->proc_len <= 3 || strncmp(s, "gfx", 3) != 0)
			return -EINVAL;
		for (size_t i = 3; i < p->proc_len; i++)
			if (!is_lower_alnum(s[i]) && s[i] != '-')
				return -EINVAL;
	}
	while (colon) {
		const char *f = colon + 1, *end;
		size_t len;

		colon = strchr(f, ':');
		end = colon ? colon : f + strlen(f);
		len = (size_t)(end - f);
		if (len < 2 || (end[-1] != '+' && end[-1] != '-') || p->nf == MAX_FEATURES)
			return -EINVAL;
		len--;
		for (size_t i = 0; strict && i < len; i++)
			if (!is_lower_alnum(f[i]) && f[i] != '_')
				return -EINVAL;
		for (size_t i = 0; i < p->nf; i++)
			if (p->f[i].len == len && !memcmp(p->f[i].name, f, len))
				return -EINVAL;
		p->f[p->nf].name = f;
		p->f[p->nf].len = len;
		p->f[p->nf].sign = end[-1];
		p->nf++;
	}
	return 0;
}

static int feature_cmp(const void *a, const void *b)
{
	const struct feature *x = a, *y = b;
	int c = memcmp(x->name, y->name, RK_MIN(x->len, y->len));

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Write the processor and the features selected by mask (bit nf-1-i = f[i]) to out. */
static void format(const struct parsed *p, unsigned mask, char out[RK_TARGET_MAX])
{
	size_t o = p->proc_len;

	memcpy(out, p->proc, o); /* parse() bounded the whole ID by RK_TARGET_MAX */
	for (size_t i = 0; i < p->nf; i++) {
		if (!(mask & (1u << (p->nf - 1 - i))))
			continue;
		out[o++] = ':';
		memcpy(out + o, p->f[i].name, p->f[i].len);
		o += p->f[i].len;
		out[o++] = p->f[i].sign;
	}
	out[o] = '\0';
}

int rk_target_canon(const char *id, char out[RK_TARGET_MAX])
{
	struct parsed p;
	int rc = parse(id, &p, 1);

	if (rc)
		return rc;
	qsort(p.f, p.nf, sizeof(p.f[0]), feature_cmp);
	format(&p, (1u << p.nf) - 1, out);
	return 0;
}

void rk_target_processor(const char *id, char out[RK_TARGET_MAX])
{
	const char *s = strip_prefix(id);
	size_t n = strcspn(s, ":");

	n = RK_MIN(n, (size_t)RK_TARGET_MAX - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}

int rk_target_compatible(const char *co, const char *dev)
{
	struct parsed c, d;

	if (parse(strip_prefix(co), &c, 1) || parse(strip_prefix(dev), &d, 1))
		return 0;
	if (c.proc_len != d.proc_len || memcmp(c.proc, d.proc, c.proc_len))
		return 0;
	for (size_t i = 0; i < c.nf; i++) {
		size_t j = 0;

		while (j < d.nf &&
		       (d.f[j].len != c.f[i].len || memcmp(d.f[j].name, c.f[i].name, c.f[i].len)))
			j++;
		if (j == d.nf || d.f[j].sign != c.f[i].sign)
			return 0;
	}
	return 1;
}

int rk_target_candidates(const char *dev, char out[][RK_TARGET_MAX], size_t max)
{
	struct parsed p;
	size_t n = 0;

	if (parse(strip_prefix(dev), &p, 0))
		return -EINVAL;
	/* The mask counts down from "every feature" to "none", as the runtime does. */
	for (unsigned mask = (1u << p.nf); mask-- > 0 && n < max;)
		format(&p, mask, out[n++]);
	return (int)n;
}

static const struct {
	const char *proc, *generic;
} generics[] = {
	{"gfx900", "gfx9-generic"},	{"gfx902", "gfx9-generic"},
	{"gfx904", "gfx9-generic"},	{"gfx906", "gfx9-generic"},
	{"gfx909", "gfx9-generic"},	{"gfx90c", "gfx9-generic"},
	{"gfx942", "gfx9-4-generic"},	{"gfx950", "gfx9-4-generic"},
	{"gfx1010", "gfx10-1-generic"}, {"gfx1011", "gfx10-1-generic"},
	{"gfx1012", "gfx10-1-generic"}, {"gfx1013", "gfx10-1-generic"},
	{"gfx1030", "gfx10-3-generic"}, {"gfx1031", "gfx10-3-generic"},
	{"gfx1032", "gfx10-3-generic"}, {"gfx1033", "gfx10-3-generic"},
	{"gfx1034", "gfx10-3-generic"}, {"gfx1035", "gfx10-3-generic"},
	{"gfx1036", "gfx10-3-generic"}, {"gfx1100", "gfx11-generic"},
	{"gfx1101", "gfx11-generic"},	{"gfx1102", "gfx11-generic"},
	{"gfx1103", "gfx11-generic"},	{"gfx1150", "gfx11-generic"},
	{"gfx1151", "gfx11-generic"},	{"gfx1152", "gfx11-generic"},
	{"gfx1153", "gfx11-generic"},	{"gfx1200", "gfx12-generic"},
	{"gfx1201", "gfx12-generic"},	{"gfx1250", "gfx12-5-generic"},
};

const char *rk_target_generic(const char *processor)
{
	for (size_t i = 0; i < RK_ARRAY_SIZE(generics); i++)
		if (!strcmp(generics[i].proc, processor))
			return generics[i].generic;
	return NULL;
}

/* EF_AMDGPU_MACH values (llvm/BinaryFormat/ELF.h). */
static const struct {
	uint8_t mach;
	const char *name;
} machs[] = {
	{0x20, "gfx600"},	   {0x21, "gfx601"},	      {0x22, "gfx700"},
	{0x23, "gfx701"},	   {0x24, "gfx702"},	      {0x25, "gfx703"},
	{0x26, "gfx704"},	   {0x28, "gfx801"},	      {0x29, "gfx802"},
	{0x2A, "gfx803"},	   {0x2B, "gfx810"},	      {0x2C, "gfx900"},
	{0x2D, "gfx902"},	   {0x2E, "gfx904"},	      {0x2F, "gfx906"},
	{0x30, "gfx908"},	   {0x31, "gfx909"},	      {0x32, "gfx90c"},
	{0x33, "gfx1010"},	   {0x34, "gfx1011"},	      {0x35, "gfx1012"},
	{0x36, "gfx1030"},	   {0x37, "gfx1031"},	      {0x38, "gfx1032"},
	{0x39, "gfx1033"},	   {0x3A, "gfx602"},	      {0x3B, "gfx705"},
	{0x3C, "gfx805"},	   {0x3D, "gfx1035"},	      {0x3E, "gfx1034"},
	{0x3F, "gfx90a"},	   {0x40, "gfx940"},	      {0x41, "gfx1100"},
	{0x42, "gfx1013"},	   {0x43, "gfx1150"},	      {0x44, "gfx1103"},
	{0x45, "gfx1036"},	   {0x46, "gfx1101"},	      {0x47, "gfx1102"},
	{0x48, "gfx1200"},	   {0x49, "gfx1250"},	      {0x4A, "gfx1151"},
	{0x4B, "gfx941"},	   {0x4C, "gfx942"},	      {0x4E, "gfx1201"},
	{0x4F, "gfx950"},	   {0x50, "gfx1310"},	      {0x51, "gfx9-generic"},
	{0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"},
	{0x55, "gfx1152"},	   {0x57, "gfx1154"},	      {0x58, "gfx1153"},
	{0x59, "gfx12-generic"},   {0x5A, "gfx1251"},	      {0x5B, "gfx12-5-generic"},
	{0x5C, "gfx1172"},	   {0x5D, "gfx1170"},	      {0x5E, "gfx1171"},
	{0x5F, "gfx9-4-generic"},  {0x62, "gfx11-7-generic"}, {0x63, "gfx13-generic"},
};

#define EM_AMDGPU 224
#define ELFOSABI_AMDGPU_HSA 64

int rk_codeobj_target(const void *p, size_t n, char out[RK_TARGET_MAX], struct rk_err *err)
{
	const unsigned char *b = p;
	const char *name = NULL;
	unsigned abi, machine;
	uint32_t flags;
	uint8_t mach;
	const char *sramecc = "", *xnack = "";

	if (n < 4 || memcmp(b, "\177ELF", 4))
		return rk_err_set(err, -EINVAL, "code object: not an ELF file");
	if (n < 64)
		return rk_err_set(err, -EINVAL, "code object: truncated ELF header (%zu bytes)", n);
	if (b[4] != 2 || b[5] != 1)
		return rk_err_set(err, -EINVAL,
				  "code object: not ELF64 little-endian (class %u, data %u)", b[4],
				  b[5]);
	machine = rk_le16(b + 18);
	if (machine != EM_AMDGPU)
		return rk_err_set(err, -EINVAL, "code object: e_machine %u is not AMDGPU", machine);
	if (b[7] != ELFOSABI_AMDGPU_HSA)
		return rk_err_set(err, -EINVAL, "code object: OS ABI %u is not AMDGPU HSA", b[7]);
	abi = b[8];
	if (abi > 4)
		return rk_err_set(err, -EINVAL, "code object: unsupported ABI version %u", abi);
	flags = rk_le32(b + 48);
	mach = (uint8_t)(flags & 0xFF);
	for (size_t i = 0; i < RK_ARRAY_SIZE(machs); i++)
		if (machs[i].mach == mach)
			name = machs[i].name;
	if (!name)
		return rk_err_set(err, -EINVAL, "code object: unknown e_flags mach 0x%02x", mach);
	if (abi <= 1) {
		/* V2 and V3: LLVM writes both with the V3 flags; a set bit means "on" */
		if (flags & 0x200)
			sramecc = ":sramecc+";
		if (flags & 0x100)
			xnack = ":xnack+";
	} else {
		uint32_t x = flags & 0x300, s = flags & 0xC00;

		xnack = x == 0x300 ? ":xnack+" : x == 0x200 ? ":xnack-" : "";
		sramecc = s == 0xC00 ? ":sramecc+" : s == 0x800 ? ":sramecc-" : "";
	}
	snprintf(out, RK_TARGET_MAX, "%s%s%s", name, sramecc, xnack);
	return 0;
}
