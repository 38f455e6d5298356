#!/usr/bin/env python3
"""latproxy.py: an HTTP proxy that adds LATENCY_MS before forwarding each request to
UPSTREAM (http://host:port), as a far server would; one thread per connection, keep-alive
both ways. For bench/remote_bench.sh (tc netem on lo would slow every process on the
machine). Usage: latproxy.py UPSTREAM LATENCY_MS PORT_FILE"""
import http.client, http.server, os, socketserver, sys, threading, time, urllib.parse

up = urllib.parse.urlparse(sys.argv[1])
delay = float(sys.argv[2]) / 1000.0
local = threading.local()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        time.sleep(delay)
        c = getattr(local, "c", None)
        if c is None:
            c = local.c = http.client.HTTPConnection(up.hostname, up.port)
        hdrs = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        try:
            c.request("GET", self.path, headers=hdrs)
            r = c.getresponse()
        except (http.client.HTTPException, OSError):
            local.c = c = http.client.HTTPConnection(up.hostname, up.port)
            c.request("GET", self.path, headers=hdrs)
            r = c.getresponse()
        body = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("connection", "transfer-encoding", "content-length", "keep-alive"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.serve_forever()
