#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fault-injecting HTTP proxy in front of the test S3 server (s3rver).

Listens on 127.0.0.1 (port 0 unless --port: the port it got goes to
--port-file), forwards every request to --upstream, and on the way:
  - checks each request's AWS Signature Version 4 against --secret, which
    s3rver does not (it checks only the access key id): a bad signature is
    answered 403 SignatureDoesNotMatch and logged as "badsig";
  - answers the next N requests with an injected status when --mode-file
    says "STATUS N" (e.g. "500 3"), then forwards again; "STATUS" alone
    injects forever;
  - with "hang" in --mode-file, reads each request and never answers (a
    stalled server), logging "METHOD PATH hang";
  - appends one line per request to --log: "METHOD PATH STATUS [injected]".
Test use only; 127.0.0.1 only.
"""
import argparse
import hashlib
import hmac
import http.client
import http.server
import os
import re
import socketserver
import sys
import threading

LOCK = threading.Lock()
ARGS = None


def sign_ok(handler, body_hash):
    auth = handler.headers.get("Authorization", "")
    m = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, "
                 r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$", auth)
    if not m:
        return False
    _key, day, region, signed, signature = m.groups()
    date = handler.headers.get("x-amz-date", "")
    path, _, query = handler.path.partition("?")
    canon_query = "&".join(sorted(q if "=" in q else q + "=" for q in query.split("&") if q))
    lines = [handler.command, path, canon_query]
    for name in signed.split(";"):
        value = handler.headers.get(name, "")
        lines.append(name + ":" + " ".join(value.split()))
    lines += ["", signed, body_hash]
    canon = "\n".join(lines)
    scope = "/".join([day, region, "s3", "aws4_request"])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", date, scope,
                         hashlib.sha256(canon.encode()).hexdigest()])
    key = ("AWS4" + ARGS.secret).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    want = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, signature)


def take_injection():
    """The status to inject for this request, or None."""
    with LOCK:
        try:
            with open(ARGS.mode_file) as f:
                words = f.read().split()
        except FileNotFoundError:
            return None
        if not words:
            return None
        if words[0] == "hang":
            return "hang"
        status = int(words[0])
        if len(words) > 1:
            left = int(words[1])
            if left <= 0:
                return None
            tmp = ARGS.mode_file + ".tmp"
            with open(tmp, "w") as f:
                f.write("%d %d\n" % (status, left - 1))
            os.replace(tmp, ARGS.mode_file)
        return status


def log(line):
    with LOCK:
        with open(ARGS.log, "a") as f:
            f.write(line + "\n")


ERROR_XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
             '<Message>%s</Message></Error>')
CODES = {403: ("AccessDenied", "Access Denied (injected by the test proxy)"),
         500: ("InternalError", "We encountered an internal error (injected). Please try again."),
         503: ("SlowDown", "Please reduce your request rate (injected).")}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        claimed = self.headers.get("x-amz-content-sha256")
        body_hash = claimed if claimed else hashlib.sha256(b"").hexdigest()
        if claimed and claimed != "UNSIGNED-PAYLOAD" and \
                claimed != hashlib.sha256(body).hexdigest():
            body_hash = None
        if body_hash is None or not sign_ok(self, body_hash):
            log("%s %s 403 badsig" % (self.command, self.path))
            self.reply(403, (ERROR_XML % ("SignatureDoesNotMatch",
                                          "bad signature (test proxy)")).encode())
            return
        status = take_injection()
        if status == "hang":
            log("%s %s hang" % (self.command, self.path))
            threading.Event().wait(3600)
            return
        if status:
            code, msg = CODES.get(status, ("Injected", "injected"))
            log("%s %s %d injected" % (self.command, self.path, status))
            self.reply(status, (ERROR_XML % (code, msg)).encode(),
                       [("Content-Type", "application/xml")])
            return
        up = http.client.HTTPConnection("127.0.0.1", ARGS.upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("connection", "expect", "content-length")}
        up.request(self.command, self.path, body=body, headers=headers)
        resp = up.getresponse()
        data = resp.read()
        up.close()
        log("%s %s %d" % (self.command, self.path, resp.status))
        keep = [(k, v) for k, v in resp.getheaders()
                if k.lower() not in ("connection", "content-length", "transfer-encoding",
                                     "keep-alive")]
        self.reply(resp.status, data, keep)

    do_PUT = do_GET = do_HEAD = do_POST = do_DELETE = handle_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--upstream", type=int, required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", required=True)
    p.add_argument("--mode-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--secret", required=True)
    ARGS = p.parse_args()
    srv = Server(("127.0.0.1", ARGS.port), Handler)
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, ARGS.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
