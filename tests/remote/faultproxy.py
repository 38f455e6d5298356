#!/usr/bin/env python3
"""faultproxy.py: an HTTP proxy for the remote-store tests that misbehaves on a schedule.

    faultproxy.py UPSTREAM PORT_FILE SCHEDULE_FILE [--sigv4 KEY:SECRET:REGION]

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening) and forwards every
request to UPSTREAM (http://host:port). SCHEDULE_FILE holds comma-separated actions, used
in turn, one per request, cycling; it is re-read whenever it changes (the turn restarts):

    ok        forward unchanged
    500, 503  answer that status without asking upstream
    drop      close the connection without an answer
    reset     send the headers and half of the body, then reset the connection (RST)
    truncate  send the headers (full Content-Length) and half of the body, then close
    lie       send half of the body with a Content-Length that says it is all
    short10   send the whole body with a Content-Length 10 bytes short: the last 10 bytes
              stay on the kept-alive connection, where the next answer is read
    headsmall answer HEAD of an archive (a path with ".tar.", not a .sha256sum) with half
              its true Content-Length: a listing that says it is smaller than it is;
              other requests are forwarded unchanged
    stall     send the headers and a quarter of the body, then nothing for 60 s
    freeze    read the request, then answer nothing for 60 s (a frozen server)
    hold      send the headers and half of the body, then the rest once SCHEDULE_FILE.go
              exists (60 s at most): a slow upload the test releases
    holdbad   as hold, but the rest arrives with every byte inverted (a corrupt archive
              whose damage shows only after its first half was served)

With --sigv4 every request must carry a valid AWS Signature Version 4 for that key
(checked here, independently of rockfs's signer: 403 SignatureDoesNotMatch otherwise).
Each request is logged to stdout: "REQ <method> <path> <action> <status>".
"""
import hashlib
import hmac
import http.client
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

upstream = urllib.parse.urlsplit(sys.argv[1])
port_file = sys.argv[2]
schedule_file = sys.argv[3]
sigv4 = None
if len(sys.argv) > 5 and sys.argv[4] == "--sigv4":
    sigv4 = sys.argv[5].split(":")

lock = threading.Lock()
state = {"mtime": None, "actions": ["ok"], "turn": 0}


def next_action():
    with lock:
        try:
            st = os.stat(schedule_file)
            key = (st.st_mtime_ns, st.st_size)
            if key != state["mtime"]:
                with open(schedule_file) as f:
                    acts = [a.strip() for a in f.read().split(",") if a.strip()]
                state["actions"] = acts or ["ok"]
                state["mtime"] = key
                state["turn"] = 0
        except OSError:
            pass
        a = state["actions"][state["turn"] % len(state["actions"])]
        state["turn"] += 1
        return a


def sign_check(h):
    """None when h's SigV4 signature is valid, else the reason."""
    auth = h.headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "no SigV4 Authorization header"
    fields = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    cred = fields["Credential"].split("/")
    key, secret, region = sigv4
    if cred[0] != key or cred[2] != region or cred[3] != "s3":
        return "wrong credential scope %s" % fields["Credential"]
    signed = fields["SignedHeaders"].split(";")
    url = urllib.parse.urlsplit(h.path)
    query = "&".join(sorted(p if "=" in p else p + "=" for p in url.query.split("&") if p))
    canon_headers = "".join("%s:%s\n" % (n, " ".join(h.headers.get(n, "").split())) for n in signed)
    creq = "\n".join([h.command, url.path or "/", query, canon_headers, ";".join(signed),
                      h.headers.get("x-amz-content-sha256", "")])
    amzdate = h.headers.get("x-amz-date", "")
    scope = "/".join(cred[1:])
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in cred[1:]:
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    if not amzdate.startswith(cred[1]) or not hmac.compare_digest(want, fields["Signature"]):
        return "signature mismatch"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, action, status):
        sys.stdout.write("REQ %s %s %s %s\n" % (self.command, self.path, action, status))
        sys.stdout.flush()

    def plain(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        action = next_action()
        if sigv4:
            why = sign_check(self)
            if why:
                self.log("sigv4:" + why.replace(" ", "_"), 403)
                return self.plain(403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>")
        if action in ("500", "503"):
            self.log(action, action)
            return self.plain(int(action), b"<Error><Code>InternalError</Code></Error>")
        if action == "freeze":
            self.log(action, "-")
            time.sleep(60)
            self.close_connection = True
            return
        if action == "drop":
            self.log(action, "-")
            self.close_connection = True
            return
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
        conn.request(self.command, self.path, headers=headers)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        status = r.status
        self.log(action, status)
        self.send_response(status)
        for k, v in r.getheaders():
            if k.lower() not in ("connection", "transfer-encoding", "content-length", "date",
                                 "server", "keep-alive"):
                self.send_header(k, v)
        half = len(body) // 2
        if action == "short10" and self.command != "HEAD" and len(body) > 10:
            self.send_header("Content-Length", str(len(body) - 10))
            self.end_headers()
            self.wfile.write(body)
            return
        if (action == "headsmall" and self.command == "HEAD" and r.getheader("Content-Length")
                and ".tar." in self.path and not self.path.endswith(".sha256sum")):
            self.send_header("Content-Length", str(int(r.getheader("Content-Length")) // 2))
            self.end_headers()
            return
        if action == "lie" and self.command != "HEAD" and body:
            self.send_header("Content-Length", str(half))
            self.end_headers()
            self.wfile.write(body[:half])
            return
        cl = r.getheader("Content-Length")
        self.send_header("Content-Length", cl if self.command == "HEAD" and cl else str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if action in ("hold", "holdbad") and len(body) > 1:
            self.wfile.write(body[:half])
            self.wfile.flush()
            for _ in range(600):
                if os.path.exists(schedule_file + ".go"):
                    break
                time.sleep(0.1)
            rest = body[half:]
            if action == "holdbad":
                rest = bytes(b ^ 0xFF for b in rest)
            self.wfile.write(rest)
            return
        if action in ("reset", "truncate", "stall") and len(body) > 1:
            self.wfile.write(body[: half if action != "stall" else len(body) // 4])
            self.wfile.flush()
            if action == "stall":
                time.sleep(60)
            elif action == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        self.wfile.write(body)

    do_HEAD = do_GET


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = Server(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
