/* test_remote.c: the remote stores' parsers and signer (rk/remote.h), and the transport's
 * failures without a server (core/src/store/http.h). Servers are exercised by the integration
 * tests (tests/integration/remote_*.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/remote.h"
#include "rk/store.h"
#include "store/http.h"
#include "rk_test.h"

/* AWS's published SigV4 example for S3 "GET Bucket (List Objects)"
 * (docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html). */
RK_TEST(sigv4_aws_example)
{
	struct rk_sigv4_key k = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
				 NULL, "us-east-1", "s3"};
	struct rk_err err = RK_ERR_INIT;
	char h[2048];
	int n = rk_sigv4_sign(&k, "GET",
			      "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
			      1369353600 /* 20130524T000000Z */, h, sizeof(h), &err);

	RK_ASSERT(n > 0);
	RK_ASSERT_EQ_STR(
		"Authorization: AWS4-HMAC-SHA256 "
		"Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
		"SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
		"Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		h);
	RK_ASSERT_EQ_STR("x-amz-date: 20130524T000000Z", h + strlen(h) + 1);
}

RK_TEST(sigv4_session_token_and_space)
{
	struct rk_sigv4_key k = {"AK", "SK", "TOKEN", "us-east-2", "s3"};
	char h[2048], small[64];
	int n = rk_sigv4_sign(&k, "GET", "http://127.0.0.1:9000/b/k%3Ax", 0, h, sizeof(h), NULL);
	const char *p = h;
	int found = 0;

	RK_ASSERT(n > 0);
	RK_ASSERT(strstr(
		h, "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token"));
	while (p < h + n) {
		found |= !strcmp(p, "x-amz-security-token: TOKEN");
		p += strlen(p) + 1;
	}
	RK_ASSERT(found);
	RK_ASSERT_EQ_INT(-ENOSPC,
			 rk_sigv4_sign(&k, "GET", "http://h/", 0, small, sizeof(small), NULL));
	RK_ASSERT_EQ_INT(-EINVAL, rk_sigv4_sign(&k, "GET", "no-scheme", 0, h, sizeof(h), NULL));
}

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
	"<Name>b</Name><Prefix>run/</Prefix><KeyCount>4</KeyCount><IsTruncated>true</IsTruncated>"
	"<NextContinuationToken>tok&amp;1</NextContinuationToken>"
	"<Contents><Key>run/a_b_gfx942&#58;xnack+.tar.zst</Key>"
	"<LastModified>2026-11-22T00:31:40.000Z</LastModified><Size>1234</Size></Contents>"
	"<Contents><Key>run/</Key><Size>0</Size></Contents>"
	"<Contents><Key>other/x</Key><Size>1</Size></Contents>"
	"<CommonPrefixes><Prefix>run/manifests/</Prefix></CommonPrefixes>"
	"</ListBucketResult>";

RK_TEST(s3_list_page)
{
	struct rk_store_list l = {0};
	struct rk_err err = RK_ERR_INIT;
	char *next = NULL;

	RK_ASSERT_EQ_INT(0, rk_s3_parse_list(page1, strlen(page1), "run/", 0, &l, &next, &err));
	RK_ASSERT_EQ_STR("tok&1", next);
	rk_store_list_sort(&l);
	RK_ASSERT_EQ_INT(2, l.n);
	RK_ASSERT_EQ_STR("a_b_gfx942:xnack+.tar.zst", l.v[0].name);
	RK_ASSERT_EQ_INT(1234, l.v[0].size);
	RK_ASSERT_EQ_INT(1795307500, l.v[0].mtime);
	RK_ASSERT(!l.v[0].is_dir);
	RK_ASSERT_EQ_STR("manifests", l.v[1].name);
	RK_ASSERT(l.v[1].is_dir);
	free(next);
	rk_store_list_release(&l);
}

RK_TEST(s3_list_recursive_and_last_page)
{
	static const char xml[] = "<ListBucketResult><IsTruncated>false</IsTruncated>"
				  "<Contents><Key>r/m/x.json</Key><Size>5</Size></Contents>"
				  "<Contents><Key>r/m/../y</Key><Size>5</Size></Contents>"
				  "<Contents><Key>r/f</Key><Size>7</Size></Contents>"
				  "</ListBucketResult>";
	struct rk_store_list l = {0};
	char *next = (char *)"x";

	RK_ASSERT_EQ_INT(0, rk_s3_parse_list(xml, strlen(xml), "r/", 1, &l, &next, NULL));
	RK_ASSERT(next == NULL);
	RK_ASSERT_EQ_INT(2, l.n);
	RK_ASSERT_EQ_STR("m/x.json", l.v[0].name);
	RK_ASSERT_EQ_STR("f", l.v[1].name);
	rk_store_list_release(&l);
}

RK_TEST(s3_list_errors)
{
	static const char *bad[] = {
		"<Error><Code>AccessDenied</Code></Error>",
		"<ListBucketResult><Contents><Key>a</Key>",
		"<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents>",
		"<ListBucketResult><Contents><Key>a&bogus;</Key></Contents></ListBucketResult>",
		"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_store_list l = {0};
		struct rk_err err = RK_ERR_INIT;
		char *next = NULL;

		RK_ASSERT_EQ_INT(-EBADMSG,
				 rk_s3_parse_list(bad[i], strlen(bad[i]), "", 0, &l, &next, &err));
		RK_ASSERT(err.msg[0]);
		RK_ASSERT(next == NULL);
		rk_store_list_release(&l);
	}
}

RK_TEST(html_nginx_autoindex)
{
	static const char html[] =
		"<html>\r\n<head><title>Index of /24205988455-linux/</title></head>\r\n<body>\r\n"
		"<h1>Index of /24205988455-linux/</h1><hr><pre><a href=\"../\">../</a>\r\n"
		"<a href=\"manifests/\">manifests/</a>      22-Nov-2026 00:31       -\r\n"
		"<a href=\"blas_lib_gfx942%3Axnack%2B.tar.zst\">blas_lib_gfx942:xnack+.tar.zst</a> "
		"22-Nov-2026 00:31    1234\r\n"
		"<a href=\"a&amp;b.tar.zst.sha256sum\">a&amp;b.tar.zst.sha256sum</a>\r\n"
		"</pre><hr></body>\r\n</html>\r\n";
	struct rk_store_list l = {0};

	RK_ASSERT_EQ_INT(0, rk_html_parse_index(html, strlen(html), &l, NULL));
	rk_store_list_sort(&l);
	RK_ASSERT_EQ_INT(3, l.n);
	RK_ASSERT_EQ_STR("a&b.tar.zst.sha256sum", l.v[0].name);
	RK_ASSERT_EQ_STR("blas_lib_gfx942:xnack+.tar.zst", l.v[1].name);
	RK_ASSERT_EQ_STR("manifests", l.v[2].name);
	RK_ASSERT(l.v[2].is_dir && !l.v[1].is_dir);
	rk_store_list_release(&l);
}

/* TheRock's generate_s3_index.py and Apache: subdirectories link to name/index.html,
 * sort links (?C=N;O=D), absolute links and parents are not entries. */
RK_TEST(html_therock_and_apache)
{
	static const char html[] =
		"<table><tr><th><a href='?C=N;O=D'>Name</a></th></tr>"
		"<tr><td><a href=\"/\">Parent Directory</a></td></tr>"
		"<tr><td><a href=\"https://example.org/x\">elsewhere</a></td></tr>"
		"<tr><td><A HREF=./logs/index.html>logs/</A></td><td>-</td></tr>"
		"<tr><td><a class=\"f\" "
		"href=\"base_lib_generic.tar.zst\">base</a></td><td>12</td></tr>"
		"<tr><td><a href=\"base_lib_generic.tar.zst\">dup</a></td></tr>"
		"<tr><td><a href=\"x%2Fy\">bad</a><a href=\"%00\">nul</a><a "
		"href=\"..\">up</a></td></tr>";
	struct rk_store_list l = {0};

	RK_ASSERT_EQ_INT(0, rk_html_parse_index(html, strlen(html), &l, NULL));
	rk_store_list_sort(&l);
	RK_ASSERT_EQ_INT(2, l.n);
	RK_ASSERT_EQ_STR("base_lib_generic.tar.zst", l.v[0].name);
	RK_ASSERT_EQ_STR("logs", l.v[1].name);
	RK_ASSERT(l.v[1].is_dir);
	rk_store_list_release(&l);
}

RK_TEST(escape)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_http_escape(&b, "run/a b+c:d~e_f.g-h", 1));
	RK_ASSERT_EQ_STR("run/a%20b%2Bc%3Ad~e_f.g-h", b.buf);
	b.len = 0;
	RK_ASSERT_EQ_INT(0, rk_http_escape(&b, "a/b", 0));
	RK_ASSERT_EQ_STR("a%2Fb", b.buf);
	rk_buf_release(&b);
}

/* Nothing listens: every operation fails within its deadline, as -ETIMEDOUT (after the
 * retries) with the reason, and never hangs. */
RK_TEST(unreachable_server_gives_up)
{
	struct rk_http_opts o = {.timeout_ms = 1500, .retries = 2};
	struct rk_http_target t = {"http://127.0.0.1:9/x", NULL, NULL};
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf body = RK_BUF_INIT;
	struct rk_http_stream *s;
	struct rk_http *h;
	char buf[16];

	RK_ASSERT_EQ_INT(0, rk_http_new(&o, &h, &err));
	RK_ASSERT_EQ_INT(-ETIMEDOUT, rk_http_get(h, &t, 0, 0, 0, 100, &body, NULL, &err));
	RK_ASSERT(strstr(err.msg, "127.0.0.1:9"));
	RK_ASSERT_EQ_INT(0, rk_http_stream_open(h, &t, 10, &s, &err));
	RK_ASSERT_EQ_INT(-ETIMEDOUT, rk_http_stream_read(s, buf, sizeof(buf), &err));
	rk_http_stream_close(s);
	RK_ASSERT(rk_http_requests(h) >= 2);
	rk_http_free(h);
	rk_buf_release(&body);
}

RK_TEST(bad_locations)
{
	struct rk_store *s = NULL;
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(-EINVAL, rk_store_open("s3://", &s, &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_store_open("s3://b?x/y", &s, &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_store_open("http://h/x?q", &s, &err));
	RK_ASSERT(rk_store_is_remote("s3://b") && rk_store_is_remote("https://x") &&
		  !rk_store_is_remote("/srv/s3://"));
}
