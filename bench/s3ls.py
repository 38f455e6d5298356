#!/usr/bin/env python3
"""s3ls.py: the listing `aws s3 ls` users would make of a bucket of runs, for
bench/remote_bench.sh (aws-cli cannot be installed here): ListObjectsV2 of the root with
a delimiter (every page), then of every run prefix without one (every page), JOBS at a
time (aws-cli's max_concurrent_requests defaults to 10), one keep-alive connection per
thread, unsigned. Prints the runs and objects counted. Usage: s3ls.py ENDPOINT BUCKET JOBS"""
import concurrent.futures, http.client, re, sys, threading, urllib.parse

ep = urllib.parse.urlparse(sys.argv[1])
bucket, jobs = sys.argv[2], int(sys.argv[3])
local = threading.local()


def get(path):
    c = getattr(local, "c", None)
    if c is None:
        c = local.c = http.client.HTTPConnection(ep.hostname, ep.port)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read().decode()
    if r.status != 200:
        raise SystemExit("%s: HTTP %d" % (path, r.status))
    return body


def list_all(prefix, delimiter):
    keys, prefixes, token = [], [], None
    while True:
        q = {"list-type": "2", "prefix": prefix}
        if delimiter:
            q["delimiter"] = "/"
        if token:
            q["continuation-token"] = token
        body = get("/%s?%s" % (bucket, urllib.parse.urlencode(q)))
        keys += re.findall(r"<Key>([^<]*)</Key>", body)
        prefixes += re.findall(r"<Prefix>([^<]*/)</Prefix>", body)
        m = re.search(r"<NextContinuationToken>([^<]*)<", body)
        if not m:
            return keys, [p for p in prefixes if p != prefix]
        token = m.group(1)


_, runs = list_all("", True)
with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    n = sum(len(k) for k, _ in ex.map(lambda p: list_all(p, False), runs))
print("%d runs, %d objects" % (len(runs), n))
