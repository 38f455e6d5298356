/* test_topology.c: the split_databases lists of BUILD_TOPOLOGY.toml (rk/topology.h): the
 * built-in table, the TOML forms TheRock's file uses (and others it may), and bad files
 * rejected with their line. With RK_THEROCK_TOPOLOGY=<TheRock's BUILD_TOPOLOGY.toml> set,
 * therock_file also checks that the built-in table is what that file says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/topology.h"
#include "rk_test.h"

/* "rocblas hipblaslt" for a set. */
static const char *set_str(const struct rk_kpack_db_set *s)
{
	static char buf[256];

	buf[0] = '\0';
	for (unsigned i = 0; i < s->n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 rk_kpack_db_name(s->h[i]));
	return buf;
}

static void parse_ok(const char *text, struct rk_topology *t)
{
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_topology_parse(text, strlen(text), "t.toml", t, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "parse failed: %s", rk_err_str(&err, rc));
}

static void parse_bad(const char *text, const char *msg)
{
	struct rk_topology t;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_topology_parse(text, strlen(text), "t.toml", &t, &err);

	if (rc != -EINVAL || !strstr(err.msg, msg))
		rk_test_fail(__FILE__, __LINE__, "'%s': want -EINVAL and '%s', got %d '%s'", text,
			     msg, rc, err.msg);
	RK_ASSERT(!t.n && !t.e);
}

RK_TEST(builtin)
{
	const struct rk_topology *t = rk_topology_builtin();

	RK_ASSERT(t);
	RK_ASSERT_EQ_INT(4, t->n);
	RK_ASSERT_EQ_STR("rocblas hipblaslt hipsparselt", set_str(rk_topology_dbs(NULL, "blas")));
	RK_ASSERT_EQ_STR("miopen", set_str(rk_topology_dbs(NULL, "miopen")));
	RK_ASSERT_EQ_STR("hipkernelprovider", set_str(rk_topology_dbs(NULL, "hipkernelprovider")));
	RK_ASSERT_EQ_STR("hotswap_cache", set_str(rk_topology_dbs(NULL, "rccl")));
	RK_ASSERT_EQ_STR("", set_str(rk_topology_dbs(NULL, "rand")));
	RK_ASSERT_EQ_STR("", set_str(rk_topology_dbs(NULL, "composable-kernel")));
	RK_ASSERT_EQ_INT(rk_topology_toml_len, strlen(rk_topology_toml));
}

/* A fat wheel splits with the handlers of any artifact, in registry order: not aotriton
 * or composablekernel, which TheRock asks for no artifact. */
RK_TEST(wheel_handlers)
{
	struct rk_kpack_db_set w;
	struct rk_topology t;

	rk_topology_wheel_dbs(NULL, &w);
	RK_ASSERT_EQ_STR("rocblas hipblaslt hipsparselt miopen hipkernelprovider hotswap_cache",
			 set_str(&w));
	parse_ok("[artifacts.a]\nsplit_databases = [\"miopen\", \"rocblas\"]\n"
		 "[artifacts.b]\nsplit_databases = [\"rocblas\"]\n",
		 &t);
	rk_topology_wheel_dbs(&t, &w);
	RK_ASSERT_EQ_STR("rocblas miopen", set_str(&w));
	t.every = 1; /* rockpack split --split-databases: that set, for wheels too */
	t.all.n = 0;
	rk_kpack_db_set_add(&t.all, RK_KPACK_DB_AOTRITON);
	rk_topology_wheel_dbs(&t, &w);
	RK_ASSERT_EQ_STR("aotriton", set_str(&w));
	rk_topology_release(&t);
	parse_ok("[artifacts.rand]\n", &t);
	rk_topology_wheel_dbs(&t, &w);
	RK_ASSERT_EQ_STR("", set_str(&w));
	rk_topology_release(&t);
}

RK_TEST(forms)
{
	struct rk_topology t;

	parse_ok("# comment\n"
		 "[metadata]\nversion = \"2.0\"  # trailing\n"
		 "[source_sets.optional-hrx]\n"
		 "external_git_sources = [\n"
		 "    { name = \"hrx\", origin = \"https://x/y.git\", commit = \"56e6\" },\n"
		 "]\n"
		 "[artifacts.blas]\r\n"
		 "artifact_group = \"math-libs\"\n"
		 "artifact_deps = [\"core-runtime\",\n  \"core-hip\", # why\n]\n"
		 "split_databases = [\"rocblas\", \"hipblaslt\", 'hipsparselt']\n"
		 "disable_platforms_if_flags_not_set = { windows = \"FOO\" }\n"
		 "[ artifacts . \"miopen\" ]\n"
		 "split_databases = [\n  \"miopen\", \"miopen\",\n  # comment\n]\n"
		 "note = \"\"\"\n[artifacts.fake]\nsplit_databases = [\"nosuch\"]\n\"\"\"\n"
		 "raw = '''split_databases = [\"nosuch\"]'''\n"
		 "n = -12_000\nf = +1.5e3\nb = true\nd = 1979-05-27 07:32:00Z\nnan1 = -nan\n"
		 "nested = [[1, 2], [\"a\", [true]], []]\n"
		 "esc = \"tab\\t \\u00e9 \\U0001F600 \\\\ \\\"\"\n"
		 "ml = \"\"\"a \\\n    b\"\"\"\n"
		 "[artifacts]\n"
		 "rccl = { split_databases = [\"hotswap_cache\"], type = \"target-specific\" }\n"
		 "hipkernelprovider.split_databases = [ ]\n"
		 "[[artifacts.x]]\n"
		 "split_databases = [\"unknown-but-in-an-array-of-tables\"]\n"
		 "[other]\n"
		 "artifacts.y.split_databases = [\"nosuch\"]\n",
		 &t);
	RK_ASSERT_EQ_INT(4, t.n);
	RK_ASSERT_EQ_STR("blas", t.e[0].name);
	RK_ASSERT_EQ_STR("rocblas hipblaslt hipsparselt", set_str(rk_topology_dbs(&t, "blas")));
	RK_ASSERT_EQ_STR("miopen", set_str(rk_topology_dbs(&t, "miopen")));
	RK_ASSERT_EQ_STR("hotswap_cache", set_str(rk_topology_dbs(&t, "rccl")));
	RK_ASSERT_EQ_STR("hipkernelprovider", t.e[3].name);
	RK_ASSERT_EQ_STR("", set_str(rk_topology_dbs(&t, "hipkernelprovider")));
	RK_ASSERT_EQ_STR("", set_str(rk_topology_dbs(&t, "fake")));
	rk_topology_release(&t);

	/* top-level dotted keys, a BOM, no final new line */
	parse_ok("\xef\xbb\xbf"
		 "artifacts.blas.split_databases = [\"hipblaslt\", \"rocblas\"]",
		 &t);
	RK_ASSERT_EQ_STR("hipblaslt rocblas", set_str(rk_topology_dbs(&t, "blas")));
	/* every: one set for all artifacts */
	t.every = 1;
	t.all.n = 0;
	rk_kpack_db_set_add(&t.all, RK_KPACK_DB_AOTRITON);
	RK_ASSERT_EQ_STR("aotriton", set_str(rk_topology_dbs(&t, "blas")));
	RK_ASSERT_EQ_STR("aotriton", set_str(rk_topology_dbs(&t, "rand")));
	rk_topology_release(&t);
}

RK_TEST(bad_files)
{
	char deep[400];

	parse_bad("[artifacts.blas]\nsplit_databases = [\"rocblas\",\n \"rocsolver\"]\n",
		  "t.toml:3: artifacts.blas.split_databases: unknown database handler 'rocsolver'");
	parse_bad("[artifacts.blas]\nsplit_databases = \"rocblas\"\n",
		  "t.toml:2: artifacts.blas.split_databases: want an array of strings");
	parse_bad("[artifacts.blas]\nsplit_databases = [1]\n", "want an array of strings");
	parse_bad("[artifacts.blas]\nsplit_databases = [[\"rocblas\"]]\n",
		  "want an array of strings");
	parse_bad(
		"[artifacts.blas]\nsplit_databases = []\n[artifacts.blas]\nsplit_databases = []\n",
		"t.toml:4: artifacts.blas.split_databases given twice");
	parse_bad("[metadata]\nversion = \"2.0\"\n", "t.toml: no [artifacts] table");
	parse_bad("", "no [artifacts] table");
	parse_bad("[artifacts.blas\n", "t.toml:1: expected ']' closing a table header");
	parse_bad("[artifacts.blas]\nx = \"abc\n", "t.toml:2: unterminated string");
	parse_bad("[artifacts.blas]\nx = \"\"\"abc\n\n", "t.toml:4: unterminated string");
	parse_bad("[artifacts.blas]\nx = [1,\n2\n", "unterminated array");
	parse_bad("[artifacts.blas]\nx = [1 2]\n", "t.toml:2: unexpected '2' in an array");
	parse_bad("[artifacts.blas]\nx = {a = 1\n", "unterminated inline table");
	parse_bad("[artifacts.blas]\nx 1\n", "t.toml:2: expected '=' after a key");
	parse_bad("[artifacts.blas]\nx = 1 2\n", "t.toml:2: unexpected '2' after a value");
	parse_bad("[artifacts.blas] x = 1\n", "unexpected 'x' after a table header");
	parse_bad("[artifacts.blas]\nx = \"\\q\"\n", "bad escape");
	parse_bad("[artifacts.blas]\nx = \"\\uD800\"\n", "not a Unicode scalar value");
	parse_bad("[artifacts.blas]\nx = bogus\n", "bad value 'bogus'");
	parse_bad("[artifacts.blas]\nx = \n", "expected a value");
	parse_bad("[artifacts.blas]\n\"\"\"k\"\"\" = 1\n", "a multi-line string cannot be a key");
	parse_bad("[artifacts.blas]\nx = \"a\001\"\n", "control character 0x01 in a string");
	parse_bad("[artifacts.blas]\nx = 1 # \001\n", "control character 0x01 in a comment");
	parse_bad("[artifacts.blas]\n= 1\n", "expected a key");
	parse_bad("[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q]\n", "key path of more than 16 keys");
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "artifacts = ", 12);
	deep[sizeof(deep) - 1] = '\0';
	parse_bad(deep, "nested more than 64 deep");
}

RK_TEST(load)
{
	struct rk_topology t;
	struct rk_err err = RK_ERR_INIT;
	FILE *f;

	RK_ASSERT_EQ_INT(-ENOENT, rk_topology_load("nosuch.toml", &t, &err));
	RK_ASSERT(strstr(err.msg, "nosuch.toml"));
	RK_ASSERT_EQ_INT(0, mkdir("dir.toml", 0755));
	RK_ASSERT_EQ_INT(-EINVAL, rk_topology_load("dir.toml", &t, &err));
	RK_ASSERT(strstr(err.msg, "not a regular file"));
	RK_ASSERT((f = fopen("t.toml", "w")));
	fputs("[artifacts.blas]\nsplit_databases = [\"nope\"]\n", f);
	fclose(f);
	RK_ASSERT_EQ_INT(-EINVAL, rk_topology_load("t.toml", &t, &err));
	RK_ASSERT(strstr(err.msg, "t.toml:2: artifacts.blas.split_databases: unknown"));
	RK_ASSERT((f = fopen("t.toml", "w")));
	fputs("[artifacts.blas]\nsplit_databases = [\"rocblas\"]\n", f);
	fclose(f);
	RK_ASSERT_EQ_INT(0, rk_topology_load("t.toml", &t, &err));
	RK_ASSERT_EQ_STR("rocblas", set_str(rk_topology_dbs(&t, "blas")));
	rk_topology_release(&t);
}

/* The built-in table against TheRock's own file (the commit packaging/therock-topology.toml
 * names), when the test is given one. */
RK_TEST(therock_file)
{
	const char *path = getenv("RK_THEROCK_TOPOLOGY");
	const struct rk_topology *b = rk_topology_builtin();
	struct rk_topology t;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	if (!path)
		RK_SKIP("RK_THEROCK_TOPOLOGY is not set");
	if ((rc = rk_topology_load(path, &t, &err)))
		rk_test_fail(__FILE__, __LINE__, "%s", rk_err_str(&err, rc));
	RK_ASSERT_EQ_INT(b->n, t.n);
	for (size_t i = 0; i < t.n; i++) {
		char want[256];

		RK_ASSERT_EQ_STR(b->e[i].name, t.e[i].name);
		snprintf(want, sizeof(want), "%s", set_str(&b->e[i].dbs));
		RK_ASSERT_EQ_STR(want, set_str(&t.e[i].dbs));
	}
	rk_topology_release(&t);
}
