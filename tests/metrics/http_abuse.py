#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hostile and heavy clients for the metrics endpoint, loopback only.

    http_abuse.py HOST PORT IDLE_TIMEOUT
    http_abuse.py HOST PORT IDLE_TIMEOUT --hold SECONDS

HOST must be a loopback address (the test runs this in a network namespace
of its own).  Every loop is bounded in count and time.  Prints one line per
check and exits non-zero on the first that fails:
  - 1000 concurrent connections from one address (most refused by the
    per-address limit), half of them holding a partial request
    (slowloris), while a scrape from another address is still answered;
  - the held connections are closed by the server after IDLE_TIMEOUT;
  - 1000 concurrent scrapes from 1000 addresses: each is answered 200 or
    refused, none hangs;
  - malformed requests get a 4xx (505 for a bad version) or a closed
    connection, never a hang;
  - other methods 405 with Allow, other paths 404;
  - 200 scrapes on one keep-alive connection;
  - a local user holding every slot with connections that are never idle
    (a header line every 0.4 IDLE_TIMEOUT from 16 addresses, reopened
    when closed): scrapes from another address are answered meanwhile,
    each within IDLE_TIMEOUT + 1 s.
With --hold, only the last: the slots are held for SECONDS while another
client (the test's curl) scrapes, and the attacker's counts are printed.
"""
import errno
import ipaddress
import resource
import selectors
import socket
import sys
import threading
import time

HOST, PORT, IDLE = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
HOLD = float(sys.argv[5]) if sys.argv[4:5] == ["--hold"] else None
assert ipaddress.ip_address(HOST).is_loopback, "loopback targets only"
DEADLINE = time.monotonic() + 60


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


START = time.monotonic()


def ok(msg):
    print(f"ok {msg} [{time.monotonic() - START:.1f} s]")


def connect(src, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect((HOST, PORT))
    return s


def read_response(s, limit=1 << 24):
    """Status code and body of one response (Content-Length framed),
    or None if the server closed without answering."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get(b"content-length", b"0"))
    while len(body) < length and len(body) < limit:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, (headers, body)


def request(src, raw, timeout=5.0):
    """Send raw bytes on a fresh connection; (status, (headers, body)) or
    (None, b"") if the server closed or reset it without an answer."""
    s = connect(src, timeout)
    try:
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # it may have answered and closed before reading it all
    try:
        return read_response(s)
    except (ConnectionResetError, BrokenPipeError):
        return None, b""
    finally:
        s.close()


def scrape_ok(src):
    status, (_, body) = request(
        src, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    return status == 200 and b"\nclassifier_up 1\n" in body


def open_many(sources, n, partial):
    """n non-blocking connects; those the server keeps send `partial`."""
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((sources[i % len(sources)], 0))
        err = s.connect_ex((HOST, PORT))
        if err not in (0, errno.EINPROGRESS):
            fail(f"connect {i}: {errno.errorcode.get(err, err)}")
        socks.append(s)
    # wait for every connect to finish (bounded)
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE)
    pending = len(socks)
    end = time.monotonic() + 10
    while pending and time.monotonic() < end:
        for key, _ in sel.select(0.5):
            sel.unregister(key.fileobj)
            pending -= 1
    sel.close()
    if pending:
        fail(f"{pending} connects still pending after 10 s")
    for i, s in enumerate(socks):
        if partial and i % 2 == 0:
            try:
                s.send(partial)
            except OSError:
                pass
    return socks


def alive(s):
    """True while the server keeps the (non-blocking) connection open."""
    try:
        return s.recv(4096) != b""  # data (an error page) or EOF
    except BlockingIOError:
        return True
    except OSError:
        return False


def held_after(socks, wait):
    time.sleep(wait)
    # drain what the server said; a socket it closed reads EOF or resets
    return sum(1 for s in socks if alive(s) and alive(s))


def slowloris():
    socks = open_many(["127.0.0.2"], 1000, b"GET /metr")
    time.sleep(0.3)
    held = held_after(socks, 0)
    if held > 64:
        fail(f"slowloris: the server keeps {held} of 1000 connections "
             "from one address")
    ok(f"1000 connections from one address: {held} kept, "
       f"{1000 - held} refused")
    if not scrape_ok("127.0.0.1"):
        fail("a scrape from another address during the slowloris")
    ok("a scrape from another address is answered meanwhile")
    held = held_after(socks, IDLE + 1.5)
    if held:
        fail(f"{held} idle connections still open after {IDLE + 1.5} s")
    ok(f"idle connections closed by the server within {IDLE + 1.5} s")
    for s in socks:
        s.close()


def burst():
    # 1000 distinct client addresses: only the total limit applies
    sources = [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(1000)]
    socks = open_many(sources, 1000, None)
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    for s in socks:
        try:
            s.send(req)
        except OSError:
            pass
    answered = refused = 0
    bufs = {s: b"" for s in socks}
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    left = len(socks)
    end = time.monotonic() + 20
    while left and time.monotonic() < end:
        for key, _ in sel.select(0.5):
            s = key.fileobj
            try:
                chunk = s.recv(1 << 20)
            except OSError:
                chunk = b""
            if chunk:
                bufs[s] += chunk
                continue
            sel.unregister(s)
            left -= 1
            if bufs[s].startswith(b"HTTP/1.1 200 ") and \
                    b"\nclassifier_up 1\n" in bufs[s]:
                answered += 1
            elif not bufs[s]:
                refused += 1
            else:
                fail(f"burst: unexpected answer {bufs[s][:40]!r}")
    sel.close()
    for s in socks:
        s.close()
    if left:
        fail(f"burst: {left} connections neither answered nor "
             "closed after 20 s")
    if not answered:
        fail("burst: no scrape answered")
    ok(f"1000 concurrent scrapes from 1000 addresses: {answered} answered, "
       f"{refused} refused")


# (Bare LF line ends are not here: RFC 9112 lets a server accept them.)
MALFORMED = [
    ("garbage", b"\x00\x01\x02\xff\xfe" * 200 + b"\r\n\r\n"),
    ("no version", b"GET /metrics\r\n\r\n"),
    ("bad version", b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n"),
    ("no Host in 1.1", b"GET /metrics HTTP/1.1\r\n\r\n"),
    ("header without colon", b"GET /metrics HTTP/1.1\r\nHost: x\r\nbad\r\n\r\n"),
    ("100 KB header", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX: " +
     b"a" * 100000 + b"\r\n\r\n"),
    ("70 KB URL", b"GET /" + b"m" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("2000 headers", b"GET /metrics HTTP/1.1\r\nHost: x\r\n" +
     b"".join(b"X-%d: y\r\n" % i for i in range(2000)) + b"\r\n"),
    ("NUL in URL", b"GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("bad chunked body", b"POST /metrics HTTP/1.1\r\nHost: x\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n"),
    ("negative length", b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
     b"Content-Length: -5\r\n\r\n"),
    ("huge length", b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
     b"Content-Length: 99999999999999999999\r\n\r\n"),
    ("only CRLFs", b"\r\n" * 5000),
]


def malformed():
    for name, raw in MALFORMED:
        try:
            status, _ = request("127.0.0.1", raw, timeout=IDLE + 3)
        except socket.timeout:
            fail(f"malformed '{name}': no answer and not closed")
        if status is not None and not (400 <= status < 500 or status == 505):
            fail(f"malformed '{name}': status {status}")
        ok(f"malformed '{name}': " +
           (f"{status}" if status else "connection closed"))


def methods_and_paths():
    for m in [b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS", b"TRACE",
              b"CONNECT", b"PROPFIND"]:
        status, (headers, _) = request(
            "127.0.0.1", m + b" /metrics HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 0\r\nConnection: close\r\n\r\n")
        if status != 405 or headers.get(b"allow") != b"GET, HEAD":
            fail(f"{m.decode()}: {status}, Allow {headers.get(b'allow')}")
    ok("other methods: 405 with Allow: GET, HEAD")
    for p in [b"/", b"/metricsx", b"/metrics/", b"/api/v1/query",
              b"/%2e%2e/metrics", b"*"]:
        status, _ = request("127.0.0.1", b"GET " + p + b" HTTP/1.1\r\n"
                            b"Host: x\r\nConnection: close\r\n\r\n")
        if status not in (400, 404):
            fail(f"GET {p.decode()}: {status}")
    ok("other paths: 404")


def keep_alive():
    s = connect("127.0.0.1")
    for i in range(200):
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        status, (_, body) = read_response(s)
        if status != 200 or b"\nclassifier_up 1\n" not in body:
            fail(f"keep-alive scrape {i}: {status}")
    s.close()
    ok("200 scrapes on one keep-alive connection")


def starve_slots(stop, stats):
    """64 connections from 16 addresses (the per-address limit is 8),
    each sent one more header line every 0.4 IDLE: never idle."""
    addrs = [f"127.0.5.{1 + i}" for i in range(16)]
    socks = [None] * 64
    while not stop.is_set():
        for i, s in enumerate(socks):
            if s is not None and not alive(s):
                s.close()
                s = socks[i] = None
                stats["closed"] += 1
            if s is None:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                s.bind((addrs[i % len(addrs)], 0))
                s.connect_ex((HOST, PORT))
                socks[i] = s
                stats["opened"] += 1
                line = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
            else:
                line = b"X-Slow: %d\r\n" % stats["lines"]
            try:
                s.send(line)
                stats["lines"] += 1
            except OSError:
                pass  # not connected yet, or closed: seen next round
        stop.wait(0.4 * IDLE)
    for s in socks:
        if s is not None:
            s.close()


def starve():
    stats = {"opened": 0, "closed": 0, "lines": 0}
    stop = threading.Event()
    attacker = threading.Thread(target=starve_slots, args=(stop, stats))
    attacker.start()
    scrapes = failed = 0
    slowest = 0.0
    try:
        time.sleep(0.5)  # every slot taken
        end = time.monotonic() + 3 * IDLE + 1
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                status, (_, body) = request(
                    "127.0.0.1", b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
                    b"Connection: close\r\n\r\n", timeout=IDLE + 1)
                good = status == 200 and b"\nclassifier_up 1\n" in body
            except OSError:
                good = False
            slowest = max(slowest, time.monotonic() - t0)
            scrapes += 1
            failed += not good
            time.sleep(0.1)
    finally:
        stop.set()
        attacker.join()
    if failed:
        fail(f"starving client: {failed} of {scrapes} scrapes not answered "
             f"within {IDLE + 1} s")
    ok(f"starving client ({stats['opened']} connections opened, "
       f"{stats['closed']} closed by the server, {stats['lines']} lines): "
       f"{scrapes} scrapes answered, the slowest in {slowest:.3f} s")


def hold():
    stats = {"opened": 0, "closed": 0, "lines": 0}
    stop = threading.Event()
    attacker = threading.Thread(target=starve_slots, args=(stop, stats))
    attacker.start()
    time.sleep(HOLD)
    stop.set()
    attacker.join()
    ok(f"held the slots for {HOLD:.0f} s: {stats['opened']} connections "
       f"opened, {stats['closed']} closed by the server, "
       f"{stats['lines']} lines")


def main():
    if HOLD is not None:
        hold()
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    for check in (starve, slowloris, burst, malformed, methods_and_paths,
                  keep_alive):
        check()
        if time.monotonic() > DEADLINE:
            fail("took over 60 s")
    if not scrape_ok("127.0.0.1"):
        fail("the endpoint no longer answers")
    ok("still answering")


main()
