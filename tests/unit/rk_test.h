/* rk_test.h: the unit test harness (style.md rule 16).
 *
 * A test file defines RK_TEST(name) functions; CMake greps "RK_TEST(" and adds one
 * ctest per test, unit.<module>.<name>, which runs "test_<module> <name>". Each test
 * runs in a fresh mkdtemp directory (its cwd), removed afterwards. A failed assertion
 * prints file:line and the values and exits 1; RK_SKIP exits 77. */
#ifndef RK_TEST_H
#define RK_TEST_H

#include <stddef.h>
#include <stdint.h>

struct rk_test {
	const char *name;
	void (*fn)(void);
	struct rk_test *next;
};

void rk_test_register(struct rk_test *t);
void rk_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
void rk_test_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void rk_test_fail_int(const char *file, int line, const char *e, const char *a, long long ev,
		      long long av) __attribute__((noreturn));
void rk_test_check_str(const char *file, int line, const char *e, const char *a, const char *ev,
		       const char *av);
void rk_test_check_mem(const char *file, int line, const char *e, const char *a, const void *ev,
		       const void *av, size_t n);
/* The directory the test runs in (absolute). */
const char *rk_test_dir(void);

#define RK_TEST(name)                                                            \
	static void rk_test_fn_##name(void);                                     \
	static struct rk_test rk_test_##name = {#name, rk_test_fn_##name, NULL}; \
	__attribute__((constructor)) static void rk_test_reg_##name(void)        \
	{                                                                        \
		rk_test_register(&rk_test_##name);                               \
	}                                                                        \
	static void rk_test_fn_##name(void)

#define RK_ASSERT(cond)                                                                  \
	do {                                                                             \
		if (!(cond))                                                             \
			rk_test_fail(__FILE__, __LINE__, "assertion failed: %s", #cond); \
	} while (0)

#define RK_ASSERT_EQ_INT(expected, actual)                                                      \
	do {                                                                                    \
		long long rk_e_ = (long long)(expected), rk_a_ = (long long)(actual);           \
		if (rk_e_ != rk_a_)                                                             \
			rk_test_fail_int(__FILE__, __LINE__, #expected, #actual, rk_e_, rk_a_); \
	} while (0)

#define RK_ASSERT_EQ_STR(expected, actual) \
	rk_test_check_str(__FILE__, __LINE__, #expected, #actual, (expected), (actual))

#define RK_ASSERT_EQ_MEM(expected, actual, len) \
	rk_test_check_mem(__FILE__, __LINE__, #expected, #actual, (expected), (actual), (len))

#define RK_SKIP(...) rk_test_skip(__VA_ARGS__)

#endif
