#!/usr/bin/env python3
"""A reverse proxy in front of s3rver for the remote tests (Python 3 stdlib).

s3rver does not check AWS Signature Version 4 and ignores If-Match, so this
proxy does what S3 does there, and what the tests need besides:

* verifies SigV4 header authentication, recomputed as AWS's documentation
  describes (canonical request, string to sign, signing key); a bad one gets
  403 SignatureDoesNotMatch, an unknown key 403 InvalidAccessKeyId, a body
  whose hash differs from x-amz-content-sha256 400 XAmzContentSHA256Mismatch.
  `--selftest` checks the code against AWS's published "GET Object" example.
* answers 412 PreconditionFailed when If-Match names another ETag, and
  serves suffix ranges (bytes=-N), which s3rver gets wrong;
* counts requests and body bytes by kind (LIST, HEAD, GET, PUT, PART, POST,
  DELETE) and key: GET /__proxy__/count?kind=GET&key=REGEX[&status=N]
  [&ifmatch=0|1][&note=REGEX: fault-reset, fault-stall, truncated] -> "N BYTES";
  GET /__proxy__/log -> one line per request; POST /__proxy__/reset;
* injects faults: POST /__proxy__/fault?kind=K&key=REGEX&method=M&count=N
  &after=N&code=C&seconds=S&file=PATH, kinds: status (answer C), reset
  (close the connection with RST), stall (wait S seconds, then close),
  truncate (half of the body, then close), replace (after `after`
  matching requests, overwrite the object upstream with FILE's bytes, so
  its ETag changes between two range reads), stallbody (the headers and
  half of the body, then wait S seconds, then close), listadd (the keys
  given as add=KEY, repeatable, join the ListObjectsV2 answers whose
  prefix they fall under, as objects or common prefixes: names s3rver's
  file store cannot hold). query=REGEX narrows a fault to requests whose
  query string matches. POST /__proxy__/clear. count=-1 means for ever.
* encoding-type=url (which s3rver ignores) as S3 does it: the keys and
  prefixes of a ListObjectsV2 answer URL-encoded ('+' for a space), and
  <EncodingType>url</EncodingType>. Without it, a key holding a control
  character is answered as s3rver does (&#x1;, which XML 1.0 forbids).

  s3proxy.py --upstream HOST:PORT --port-file F [--access-key A --secret S]
             [--region R] [--anonymous]
  s3proxy.py --selftest
"""
import argparse
import calendar
import hashlib
import hmac
import os
import http.client
import http.server
import re
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
from xml.sax.saxutils import escape as xml_escape

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def uri_encode(s, keep_slash):
    """AWS's UriEncode: every byte but the unreserved ones as %XX (upper)."""
    out = []
    for b in s.encode("utf-8"):
        if b in UNRESERVED or (keep_slash and b == 0x2F):
            out.append(chr(b))
        else:
            out.append("%%%02X" % b)
    return "".join(out)


def canonical_uri(raw_path):
    # S3: the path is not normalized; each segment encoded once.
    return uri_encode(urllib.parse.unquote(raw_path), True) or "/"


def canonical_query(raw_query):
    pairs = []
    if raw_query:
        for part in raw_query.split("&"):
            if part == "":
                continue
            k, _, v = part.partition("=")
            pairs.append((uri_encode(urllib.parse.unquote(k), False),
                          uri_encode(urllib.parse.unquote(v), False)))
    pairs.sort()
    return "&".join("%s=%s" % p for p in pairs)


def canonical_headers(headers, signed):
    """headers: list of (name, value) as received; signed: lower-case names."""
    lines = []
    for name in signed:
        vals = [" ".join(v.strip().split()) for (n, v) in headers if n.lower() == name]
        lines.append("%s:%s\n" % (name, ",".join(vals)))
    return "".join(lines)


def signing_key(secret, date, region, service):
    k = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return k


def canonical_request(method, raw_path, raw_query, headers, signed, payload_hash):
    return "\n".join([method, canonical_uri(raw_path), canonical_query(raw_query),
                      canonical_headers(headers, signed), ";".join(signed), payload_hash])


def signature(secret, amz_date, scope, creq):
    date, region, service, _ = scope.split("/")
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])
    return hmac.new(signing_key(secret, date, region, service), sts.encode(),
                    hashlib.sha256).hexdigest()


def selftest():
    """AWS's "Example: GET Object" (Signature V4, header auth) for S3."""
    headers = [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
               ("x-amz-content-sha256", EMPTY_SHA256), ("x-amz-date", "20130524T000000Z")]
    signed = ["host", "range", "x-amz-content-sha256", "x-amz-date"]
    creq = canonical_request("GET", "/test.txt", "", headers, signed, EMPTY_SHA256)
    h = hashlib.sha256(creq.encode()).hexdigest()
    want_h = "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"
    sig = signature("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524T000000Z",
                    "20130524/us-east-1/s3/aws4_request", creq)
    want = "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    ok = h == want_h and sig == want
    # and the encoding rules the example does not exercise
    ok = ok and canonical_query("list-type=2&prefix=a%2Fb&continuation-token=x+y=") == \
        "continuation-token=x%2By%3D&list-type=2&prefix=a%2Fb"
    ok = ok and canonical_uri("/b/a%20b/c~d") == "/b/a%20b/c~d"
    print("selftest:", "OK" if ok else "FAILED (hash %s, signature %s)" % (h, sig))
    return 0 if ok else 1


class AuthError(Exception):
    def __init__(self, status, code, msg, creq=""):
        super().__init__(msg)
        self.status, self.code, self.msg, self.creq = status, code, msg, creq


AUTH_RE = re.compile(r"^AWS4-HMAC-SHA256\s+(.*)$")


def verify(conf, method, raw_path, raw_query, headers, body):
    """Raises AuthError unless the request is signed as S3 wants it."""
    hget = lambda n: next((v for (k, v) in headers if k.lower() == n), None)
    auth = hget("authorization")
    if "X-Amz-Algorithm=" in (raw_query or ""):
        raise AuthError(403, "AccessDenied", "query-string authentication is not supported by this proxy")
    if auth is None:
        if conf.anonymous:
            return
        raise AuthError(403, "AccessDenied", "Access Denied (unsigned request to a private bucket)")
    m = AUTH_RE.match(auth.strip())
    if not m:
        raise AuthError(400, "InvalidArgument", "unsupported Authorization type")
    parts = {}
    for item in m.group(1).split(","):
        k, _, v = item.strip().partition("=")
        parts[k] = v
    try:
        cred, signed, sig = parts["Credential"], parts["SignedHeaders"], parts["Signature"]
        akid, date, region, service, term = cred.split("/")
    except (KeyError, ValueError):
        raise AuthError(400, "AuthorizationHeaderMalformed", "the authorization header is malformed")
    if akid != conf.access_key:
        raise AuthError(403, "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records.")
    if service != "s3" or term != "aws4_request":
        raise AuthError(400, "AuthorizationHeaderMalformed", "the credential scope is not .../s3/aws4_request")
    if region != conf.region:
        raise AuthError(400, "AuthorizationHeaderMalformed",
                        "the region '%s' is wrong; expecting '%s'" % (region, conf.region))
    amz_date = hget("x-amz-date")
    if not amz_date or not amz_date.startswith(date):
        raise AuthError(403, "AccessDenied", "x-amz-date missing or not the credential's date")
    try:
        t = calendar.timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ"))
    except ValueError:
        raise AuthError(403, "AccessDenied", "x-amz-date is malformed")
    if abs(t - time.time()) > 900:
        raise AuthError(403, "RequestTimeTooSkewed", "the difference between the request time and the current time is too large")
    signed_list = signed.split(";")
    if signed_list != sorted(signed_list) or "host" not in signed_list:
        raise AuthError(403, "SignatureDoesNotMatch", "SignedHeaders must be sorted and include host")
    for (k, _) in headers:
        if k.lower().startswith("x-amz-") and k.lower() not in signed_list:
            raise AuthError(403, "AccessDenied", "There were headers present in the request which were not signed: " + k.lower())
    payload = hget("x-amz-content-sha256")
    if payload is None:
        raise AuthError(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256")
    if payload.startswith("STREAMING-"):
        raise AuthError(501, "NotImplemented", "aws-chunked uploads are not supported by this proxy")
    if payload != "UNSIGNED-PAYLOAD":
        if payload != hashlib.sha256(body).hexdigest():
            raise AuthError(400, "XAmzContentSHA256Mismatch",
                            "The provided 'x-amz-content-sha256' header does not match what was computed.")
    creq = canonical_request(method, raw_path, raw_query, headers, signed_list, payload)
    want = signature(conf.secret, amz_date, "/".join([date, region, service, term]), creq)
    if not hmac.compare_digest(want, sig):
        raise AuthError(403, "SignatureDoesNotMatch",
                        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
                        creq)


def classify(method, path, query):
    """(kind, key) of a request: key is BUCKET/KEY, or BUCKET for LIST."""
    p = urllib.parse.unquote(path).lstrip("/")
    q = urllib.parse.parse_qs(query or "", keep_blank_values=True)
    has_key = "/" in p and p.split("/", 1)[1] != ""
    if method == "GET" and not has_key:
        return "LIST", p.rstrip("/")
    if method == "PUT" and "partNumber" in q:
        return "PART", p
    return method, p


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.log = []   # (kind, key, status, bytes, range)

    def add(self, kind, key, status, nbytes, note, if_match=""):
        with self.lock:
            self.log.append((kind, key, status, nbytes, note, "if-match" if if_match else "-"))


class Fault:
    def __init__(self, q):
        self.kind = q.get("kind", "status")
        self.key = re.compile(q.get("key", ".*"))
        self.method = q.get("method")
        self.count = int(q.get("count", "1"))
        self.after = int(q.get("after", "0"))
        self.code = int(q.get("code", "503"))
        self.seconds = float(q.get("seconds", "5"))
        self.file = q.get("file")
        self.query = re.compile(q.get("query", ""))
        self.add = []
        self.seen = 0

    def take(self, kind, key, query=""):
        """True when this fault applies to the request now (and uses it up)."""
        if self.method and self.method != kind:
            return False
        if not self.key.search(key) or not self.query.search(query):
            return False
        self.seen += 1
        if self.seen <= self.after or self.count == 0:
            return False
        if self.count > 0:
            self.count -= 1
        return True


def xml_text(s):
    """The text of an element as s3rver writes it: entities undone."""
    def ent(m):
        e = m.group(1)
        if e.startswith("#x"):
            return chr(int(e[2:], 16))
        if e.startswith("#"):
            return chr(int(e[1:]))
        return {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}[e]
    return re.sub(r"&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);", ent, s)


def xml_out(s):
    """s as element text, control characters as s3rver writes them."""
    s = xml_escape(s)
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", lambda m: "&#x%x;" % ord(m.group(0)), s)


def rewrite_list(data, query, extra):
    """A ListObjectsV2 answer with the extra keys under its prefix added,
    and URL-encoded when the request asked for encoding-type=url."""
    q = urllib.parse.parse_qs(query or "", keep_blank_values=True)
    text = data.decode("utf-8")
    prefix = q.get("prefix", [""])[0]
    delim = q.get("delimiter", [""])[0]
    adds, seen = [], set()
    for k in extra:
        if not k.startswith(prefix):
            continue
        rest = k[len(prefix):]
        if delim and delim in rest:
            cp = prefix + rest[:rest.index(delim) + len(delim)]
            if cp not in seen:
                seen.add(cp)
                adds.append("<CommonPrefixes><Prefix>%s</Prefix></CommonPrefixes>" % xml_out(cp))
        else:
            adds.append("<Contents><Key>%s</Key><LastModified>2024-01-01T00:00:00.000Z"
                        "</LastModified><ETag>&quot;0&quot;</ETag><Size>100</Size>"
                        "<StorageClass>STANDARD</StorageClass></Contents>" % xml_out(k))
    if adds:
        text = text.replace("</ListBucketResult>", "".join(adds) + "</ListBucketResult>")
    if q.get("encoding-type", [""])[0] == "url":
        enc = lambda m: "<%s>%s</%s>" % (m.group(1), urllib.parse.quote_plus(
            xml_text(m.group(2)), safe="/"), m.group(1))
        text = re.sub(r"<(Key|Prefix|Delimiter|StartAfter)>([^<]*)</\1>", enc, text)
        text = text.replace("</ListBucketResult>", "<EncodingType>url</EncodingType></ListBucketResult>")
    return text.encode("utf-8")


ERROR_CODES = {500: "InternalError", 503: "SlowDown", 403: "AccessDenied", 404: "NoSuchKey"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "s3proxy"

    def log_message(self, fmt, *args):
        pass

    # ---- plumbing ---------------------------------------------------------------
    def upstream(self):
        if getattr(self, "_up", None) is None:
            self._up = http.client.HTTPConnection(self.server.conf.upstream_host,
                                                  self.server.conf.upstream_port, timeout=120)
        return self._up

    def up_request(self, method, path, body, headers):
        for attempt in (0, 1):
            try:
                c = self.upstream()
                c.request(method, path, body=body, headers=headers)
                return c.getresponse()
            except (ConnectionError, http.client.HTTPException, OSError):
                self._up = None
                if attempt:
                    raise

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                n = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send_plain(self, status, text, ctype="text/plain"):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return len(data)

    def send_s3_error(self, status, code, msg, key="", creq=""):
        extra = "<CanonicalRequest>%s</CanonicalRequest>" % xml_escape(creq) if creq else ""
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>'
                '<Resource>/%s</Resource>%s<RequestId>s3proxy</RequestId></Error>'
                % (code, xml_escape(msg), xml_escape(key), extra))
        return self.send_plain(status, body, "application/xml")

    def rst(self):
        """Closes the connection with a TCP reset."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass

    # ---- control endpoint -------------------------------------------------------------
    def control(self, path, query):
        q = dict(urllib.parse.parse_qsl(query or "", keep_blank_values=True))
        srv = self.server
        what = path[len("/__proxy__/"):]
        if what == "count":
            kind, rx = q.get("kind"), re.compile(q.get("key", ".*"))
            status, im, note = q.get("status"), q.get("ifmatch"), re.compile(q.get("note", ""))
            with srv.stats.lock:
                recs = [r for r in srv.stats.log if (not kind or r[0] == kind) and rx.search(r[1])
                        and (status is None or str(r[2]) == status)
                        and (im is None or (r[5] == "if-match") == (im == "1"))
                        and note.search(r[4])]
            return self.send_plain(200, "%d %d\n" % (len(recs), sum(r[3] for r in recs)))
        if what == "log":
            with srv.stats.lock:
                lines = ["%s %s %d %d %s %s" % (r[0], r[1], r[2], r[3], r[5], r[4]) for r in srv.stats.log]
            return self.send_plain(200, "".join(l + "\n" for l in lines))
        if what == "reset":
            with srv.stats.lock:
                srv.stats.log = []
            return self.send_plain(200, "ok\n")
        if what == "fault":
            f = Fault(q)
            f.add = [v for (k, v) in urllib.parse.parse_qsl(query or "", keep_blank_values=True)
                     if k == "add"]
            with srv.lock:
                srv.faults.append(f)
            return self.send_plain(200, "ok\n")
        if what == "clear":
            with srv.lock:
                srv.faults = []
            return self.send_plain(200, "ok\n")
        if what == "config":
            if "anonymous" in q:
                srv.conf.anonymous = q["anonymous"] == "1"
            return self.send_plain(200, "ok\n")
        return self.send_plain(404, "unknown control %s\n" % what)

    # ---- S3 -------------------------------------------------------------------------
    def handle_any(self):
        path, _, query = self.path.partition("?")
        body = self.read_body()
        if path.startswith("/__proxy__/"):
            self.control(path, query)
            return
        srv = self.server
        kind, key = classify(self.command, path, query)
        try:
            verify(srv.conf, self.command, path, query, list(self.headers.items()), body)
        except AuthError as e:
            # as S3 does, the canonical request we expected goes into the
            # answer (and the proxy's log), for whoever debugs a signer
            if e.creq:
                sys.stderr.write("%s %s: canonical request expected:\n%s\n--\n" % (self.command, self.path, e.creq))
                sys.stderr.flush()
            self.send_s3_error(e.status, e.code, e.msg, key, e.creq)
            srv.stats.add(kind, key, e.status, 0, "auth")
            return
        fault = None
        extra = []
        with srv.lock:
            for f in srv.faults:
                if f.kind == "listadd":
                    if kind == "LIST" and f.take(kind, key, query):
                        extra += f.add
                    continue
                if f.take(kind, key, query):
                    fault = f
                    break
        rng = self.headers.get("Range", "")
        im = self.headers.get("If-Match", "")
        add = lambda status, nbytes, note: srv.stats.add(kind, key, status, nbytes, note, im)
        if fault and fault.kind == "status":
            add(fault.code, 0, "fault")
            self.send_s3_error(fault.code, ERROR_CODES.get(fault.code, "InternalError"),
                               "injected by s3proxy", key)
            return
        if fault and fault.kind == "reset":
            add(0, 0, "fault-reset")
            self.rst()
            return
        if fault and fault.kind == "stall":
            add(0, 0, "fault-stall")
            time.sleep(fault.seconds)
            self.rst()
            return
        if fault and fault.kind == "replace":
            with open(fault.file, "rb") as fh:
                data = fh.read()
            path = "/" + urllib.parse.quote(key)
            r = self.up_request("PUT", path, data, {"Content-Length": str(len(data))})
            r.read()
            # s3rver answers the PUT before the bytes are on disk: wait
            # until it serves the new object whole (its ETag, its size)
            want = '"%s"' % hashlib.md5(data).hexdigest()
            for _ in range(100):
                h = self.up_request("HEAD", path, None, {})
                h.read()
                if h.getheader("ETag") == want and h.getheader("Content-Length") == str(len(data)):
                    break
                time.sleep(0.05)
        fwd = {k: v for (k, v) in self.headers.items()
               if k.lower() not in ("authorization", "connection", "keep-alive",
                                    "transfer-encoding", "content-length", "if-match")}
        if rng.startswith("bytes=-") and kind in ("GET", "HEAD"):
            h = self.up_request("HEAD", self.path, None, {"Host": self.headers.get("Host", "")})
            h.read()
            size = int(h.getheader("Content-Length") or 0)
            n = int(rng[len("bytes=-"):] or 0)
            if size > 0 and n > 0:
                fwd = {k: v for (k, v) in fwd.items() if k.lower() != "range"}
                fwd["Range"] = "bytes=%d-%d" % (max(0, size - n), size - 1)
        if body or self.command in ("PUT", "POST"):
            fwd["Content-Length"] = str(len(body))
        resp = self.up_request(self.command, self.path, body if body else None, fwd)
        if_match = self.headers.get("If-Match")
        etag = resp.getheader("ETag")
        if if_match and etag and if_match.strip() != "*" and \
                if_match.strip().strip('"') != etag.strip().strip('"'):
            resp.read()
            add(412, 0, rng)
            self.send_s3_error(412, "PreconditionFailed",
                               "At least one of the pre-conditions you specified did not hold", key)
            return
        self.send_response(resp.status)
        length = resp.getheader("Content-Length")
        data = None
        if length is None or (kind == "LIST" and resp.status == 200):
            data = resp.read()
            if kind == "LIST" and resp.status == 200:
                data = rewrite_list(data, query, extra)
            length = str(len(data))
        for (k, v) in resp.getheaders():
            if k.lower() in ("connection", "keep-alive", "transfer-encoding", "content-length", "date"):
                continue
            self.send_header(k, v)
        self.send_header("Content-Length", length)
        self.end_headers()
        total = int(length)
        if self.command == "HEAD":
            resp.read()
            add(resp.status, 0, rng)
            return
        sent = 0
        limit = total // 2 if (fault and fault.kind in ("truncate", "stallbody")) else total
        if data is not None:
            self.wfile.write(data[:limit])
            sent = min(limit, len(data))
        else:
            while sent < limit:
                chunk = resp.read(min(1 << 20, limit - sent))
                if not chunk:
                    break
                self.wfile.write(chunk)
                sent += len(chunk)
        if fault and fault.kind == "stallbody":
            add(resp.status, sent, "fault-stall " + rng)
            self.wfile.flush()
            time.sleep(fault.seconds)
            self._up = None
            self.rst()
            return
        add(resp.status, sent, ("truncated " if sent < total else "") + rng)
        if sent < total:
            # a body cut short: FIN after what was sent (a reset would drop
            # the bytes still in flight and look like a reset)
            self._up = None  # the upstream response was not read to its end
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--upstream", default="127.0.0.1:4568")
    ap.add_argument("--port-file")
    ap.add_argument("--access-key", default="S3RVER")
    ap.add_argument("--secret", default="S3RVER")
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--anonymous", action="store_true")
    conf = ap.parse_args()
    if conf.selftest:
        return selftest()
    if selftest() != 0:
        return 1
    conf.upstream_host, _, p = conf.upstream.rpartition(":")
    conf.upstream_port = int(p)
    srv = Server(("127.0.0.1", 0), Handler)
    srv.conf, srv.stats, srv.faults, srv.lock = conf, Stats(), [], threading.Lock()
    if conf.port_file:
        with open(conf.port_file + ".tmp", "w") as fh:
            fh.write("%d\n" % srv.server_address[1])
        os.rename(conf.port_file + ".tmp", conf.port_file)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
