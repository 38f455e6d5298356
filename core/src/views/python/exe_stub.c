/* exe_stub.c: the program a runtime wheel holds in place of a symlink to an executable
 * (py_packaging.py _populate_runtime_symlink, exe_stub_gen.py): it runs the executable the
 * link pointed at, found relative to the stub's own directory, with the stub's argv as it
 * is (argv[0] too, as through a symlink: tools such as amdclang++ pick their mode from
 * it) and its environment. A shell script cannot keep argv[0] (POSIX sh has no exec -a).
 *
 * Built once at build time, freestanding (no libc: nothing to match on the machine that
 * installs the wheel), and embedded (exe_stub_embed.c); view_python_synth.c writes the
 * target's relative path over TARGET, whose first bytes mark where it is. Linux on x86-64
 * and aarch64 only. */

#define TARGET_MAX 4096
#define PATH_MAX_ 8192

/* "@ROCKFS-EXE-STUB-TARGET@" then NULs: the relative path, NUL-terminated, goes here.
 * Global and written through volatile reads, so that the compiler keeps its bytes. */
char rk_exe_stub_target[TARGET_MAX] __attribute__((used, aligned(16))) = "@ROCKFS-EXE-STUB-TARGET@";

#if defined(__x86_64__)
#define NR_WRITE 1
#define NR_EXECVE 59
#define NR_EXIT 60
#define NR_READLINK 89
__asm__(".text\n.global _start\n_start:\n\txor %rbp, %rbp\n\tmov %rsp, %rdi\n"
	"\tand $-16, %rsp\n\tcall stub_main\n\thlt\n");
static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}
static long readlink_(const char *p, char *b, long n)
{
	return sys3(NR_READLINK, (long)p, (long)b, n);
}
#elif defined(__aarch64__)
#define NR_WRITE 64
#define NR_EXECVE 221
#define NR_EXIT 93
#define NR_READLINKAT 78
__asm__(".text\n.global _start\n_start:\n\tmov x29, #0\n\tmov x0, sp\n\tbl stub_main\n");
static long sys4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
			 x2 __asm__("x2") = c, x3 __asm__("x3") = d;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
static long sys3(long n, long a, long b, long c)
{
	return sys4(n, a, b, c, 0);
}
static long readlink_(const char *p, char *b, long n)
{
	return sys4(NR_READLINKAT, -100 /* AT_FDCWD */, (long)p, (long)b, n);
}
#else
#error "exe_stub.c: Linux x86-64 or aarch64 only"
#endif

/* Loops over volatile bytes: no memcpy or strlen idiom for a libc that is not there. */
static long len(const volatile char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const volatile char *s)
{
	sys3(NR_WRITE, 2, (long)s, len(s));
}

__attribute__((noreturn, used)) void stub_main(long *sp);

__attribute__((noreturn, used)) void stub_main(long *sp)
{
	static char path[PATH_MAX_];
	const volatile char *target = rk_exe_stub_target;
	volatile char *dst = path;
	char **argv = (char **)(sp + 1), **envp = argv + sp[0] + 1;
	long n = readlink_("/proc/self/exe", path, PATH_MAX_ - TARGET_MAX - 2), t = len(target);

	if (n > 0) {
		/* the stub's directory, then the target relative to it */
		while (n > 0 && path[n - 1] != '/')
			n--;
		for (long i = 0; i <= t; i++)
			dst[n + i] = target[i];
		sys3(NR_EXECVE, (long)path, (long)argv, (long)envp);
		say("rocm stub: cannot run ");
		say(path);
		say("\n");
	} else {
		say("rocm stub: cannot read /proc/self/exe\n");
	}
	sys3(NR_EXIT, 127, 0, 0);
	for (;;)
		;
}
