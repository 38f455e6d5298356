/* url.c: URLs without their secrets (rk/url.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/url.h"

char *rk_url_shown(const char *url, char *buf, size_t size)
{
	const char *scheme = strstr(url, "://"), *host, *at = NULL, *colon;
	size_t authlen, rest;

	if (!size)
		return buf;
	if (!scheme) {
		snprintf(buf, size, "%s", url);
		return buf;
	}
	host = scheme + 3;
	authlen = strcspn(host, "/?#");
	for (size_t i = 0; i < authlen; i++)
		if (host[i] == '@')
			at = host + i; /* the last '@' ends the userinfo (RFC 3986 3.2.1) */
	if (!at) {
		rest = strcspn(host, "?#");
		snprintf(buf, size, "%.*s%s", (int)(host - url + rest), url,
			 host[rest] == '?' ? "?***" : "");
		return buf;
	}
	colon = memchr(host, ':', (size_t)(at - host));
	rest = strcspn(at + 1, "?#");
	snprintf(buf, size, "%.*s***@%.*s%s", (int)((colon ? colon + 1 : host) - url), url,
		 (int)rest, at + 1, at[1 + rest] == '?' ? "?***" : "");
	return buf;
}

/* a as ps may show it: itself, or (a URL) as rk_url_shown shows it, in buf */
static const char *arg_shown(const char *a, char *buf, size_t size)
{
	return strstr(a, "://") ? rk_url_shown(a, buf, size) : a;
}

void rk_url_scrub_argv(int argc, char **argv)
{
	char shown[4096], *start, *end, *area;
	size_t need = strlen(argv[0]) + 1, off = 0;

	if (argc < 2)
		return;
	start = argv[0];
	end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	for (int i = 0; i + 1 < argc; i++)
		if (argv[i] + strlen(argv[i]) + 1 != argv[i + 1])
			start = NULL; /* not one area (someone moved an argument): in place */
	for (int i = 1; i < argc; i++)
		need += strlen(arg_shown(argv[i], shown, sizeof(shown))) + 1;
	if (start && need <= (size_t)(end - start) && (area = malloc(need))) {
		for (int i = 0; i < argc; i++) {
			const char *a = i ? arg_shown(argv[i], shown, sizeof(shown)) : argv[0];
			size_t n = strlen(a) + 1;

			memcpy(area + off, a, n);
			off += n;
		}
		memcpy(start, area, need);
		memset(start + need, 0, (size_t)(end - start) - need);
		free(area);
		for (int i = 0; i < argc; i++, start += strlen(start) + 1)
			argv[i] = start;
		return;
	}
	for (int i = 1; i < argc; i++) { /* each in its own bytes, cut to fit */
		size_t len = strlen(argv[i]);
		const char *a = arg_shown(argv[i], shown, sizeof(shown));

		if (a != argv[i] && strcmp(a, argv[i])) {
			memset(argv[i], 0, len);
			memcpy(argv[i], a, strnlen(a, len));
		}
	}
}
