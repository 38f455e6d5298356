/* rk/url.h: a URL as rockfs shows it, with its secrets left out. Pure. */
#ifndef RK_URL_H
#define RK_URL_H

#include <stddef.h>

/* url as the mount table, logs, status and messages show it, into buf (size bytes,
 * NUL-terminated, cut to fit): the password of a "user:password@" becomes "***"
 * ("user:***@"), a userinfo without ':' (a token used as user name) becomes "***@", a
 * query string becomes "?***" (a presigned URL's signature lives there) and a fragment
 * is dropped. A string without "://" is copied unchanged (a local path). Returns buf. */
char *rk_url_shown(const char *url, char *buf, size_t size);

/* Hide the secrets of a program's own command line from ps and /proc/PID/cmdline (the
 * kernel shows the bytes of the argument area, not argv[]): every argument after
 * argv[0] holding a URL is rewritten as rk_url_shown shows it, the following arguments
 * moved up to close the gap, the bytes left over zeroed, and argv[] updated (when the
 * area has no room, as the password is shorter than "***", each argument is cut to its
 * own bytes instead). What is still needed of argv must have been copied before. Not
 * thread-safe: call early in main. */
void rk_url_scrub_argv(int argc, char **argv);

#endif
