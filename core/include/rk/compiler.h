/* rk/compiler.h: attribute macros shared by every rockfs source file. */
#ifndef RK_COMPILER_H
#define RK_COMPILER_H

#define RK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define RK_MUST_CHECK __attribute__((warn_unused_result))
#define RK_NORETURN __attribute__((noreturn))
#define RK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RK_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
