#!/usr/bin/env python3
"""hostile_server.py: a fake PostgreSQL or MySQL server for
tests/hostile/hostile.sh.  It speaks enough of either protocol to get a
client past the handshake (PostgreSQL: startup, AuthenticationOk under
trust; MySQL: handshake v10, any password accepted) and to answer simple
queries, prepares, executes and bulk loads (COPY FROM STDIN, LOAD DATA
LOCAL INFILE) with one-column results, then misbehaves at one stage in one
way:

  stages  startup  the first answer of the session (PostgreSQL: to the
                   startup message; MySQL: the greeting itself)
          auth     MySQL: the answer to the handshake response
          query    a simple query (PostgreSQL 'Q', MySQL COM_QUERY) other
                   than a transaction statement or SET
          prepare  PostgreSQL Parse / MySQL COM_STMT_PREPARE
          execute  the answer to an execute, from its first byte
          fetch    the rows of an execute's answer (after valid metadata)
          copy     PostgreSQL COPY FROM STDIN / MySQL LOAD DATA LOCAL: the
                   answer at the end of the data
  modes   garbage    bytes that break the protocol (an unknown message, a
                     bad packet), then the connection stays open
          truncated  the first half of a valid answer, then close
          oversized  a length of 2^31 or more (message, field, packet,
                     length-encoded integer), then silence
          slow       a valid answer, one byte per second
          endless    a valid beginning that never ends (rows forever)
          silent     no answer at all, the connection stays open
          close      the connection closed instead of an answer

--times N misbehaves on the first N sessions only (0: all), so that a
reconnect can find a good server.  The port it listens on (127.0.0.1) is
written to --port-file once it listens.  One thread per session; it ends
when killed.  Counts of sessions and statements go to --log (one line per
event), for the test to check what the client did.
"""

import argparse
import itertools
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import *  # noqa: E402,F401,F403

args = None
lock = threading.Lock()
sessions = 0


def log(line):
    if args.log:
        with lock, open(args.log, "a") as f:
            f.write(line + "\n")


class Gone(Exception):
    pass


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        k = sock.recv(n - len(buf))
        if not k:
            raise Gone()
        buf += k
    return buf


def misbehave(sock, mode, valid, bad, oversized, endless):
    """Sends the misbehaviour `mode` in place of the answer `valid`:
    `bad` breaks the protocol, `oversized` claims 2^31 bytes or more,
    `endless()` yields chunks of a never-ending answer.  Returns only when
    the session is over."""
    log("misbehave " + mode)
    if mode == "garbage":
        sock.sendall(bad)
    elif mode == "truncated":
        sock.sendall(valid[:max(1, len(valid) // 2)])
        raise Gone()
    elif mode == "oversized":
        sock.sendall(oversized)
    elif mode == "slow":
        for i in range(len(valid)):
            sock.sendall(valid[i:i + 1])
            time.sleep(1)
        return
    elif mode == "endless":
        for chunk in endless():
            sock.sendall(chunk)
    elif mode == "close":
        raise Gone()
    # silent, and after garbage or oversized: hold the connection open,
    # reading (and dropping) whatever comes, until the client leaves
    while sock.recv(65536):
        pass
    raise Gone()


# ---- PostgreSQL ------------------------------------------------------------

def pg_session(sock, bad_session):
    def stage(name):
        return bad_session and args.stage == name

    # SSLRequest / GSSENCRequest: no; then the startup message
    while True:
        n = struct.unpack("!I", recv_exact(sock, 4))[0]
        body = recv_exact(sock, n - 4)
        code = struct.unpack("!I", body[:4])[0]
        if code in (80877103, 80877104):
            sock.sendall(b"N")
            continue
        break
    valid = pg_startup_answer()
    if stage("startup"):
        misbehave(sock, args.mode, valid, pg_msg(b"!", b"junk") + valid,
                  pg_msg(b"R", b"")[:1] + struct.pack("!I", 0x80000000),
                  lambda: (pg_param_status("x%d" % i, "y" * 100) for i in itertools.count()))
    sock.sendall(valid)
    log("session")
    failed = False   # extended protocol: skip to Sync after an error
    rows_left = 0
    selects = {}     # statement name -> whether it returns rows
    current = False  # the bound statement returns rows
    while True:
        kind = recv_exact(sock, 1)
        n = struct.unpack("!I", recv_exact(sock, 4))[0]
        body = recv_exact(sock, n - 4)
        if kind == b"X":
            raise Gone()
        if kind == b"Q":
            sql = body.rstrip(b"\0").decode(errors="replace").strip()
            word = sql.split(None, 1)[0].upper() if sql else ""
            log("query " + word)
            if word == "COPY":
                pg_copy(sock, bad_session)
                continue
            if word == "SELECT":
                valid = (pg_row_description([("c", 25)]) + pg_data_row(["1"]) +
                         pg_command_complete("SELECT 1") + pg_ready())
                if stage("query"):
                    misbehave(sock, args.mode, valid, pg_msg(b"D", b"\0\1") + valid,
                              pg_row_description([("c", 25)]) + b"D" +
                              struct.pack("!I", 0xfffffff0) + b"\0\1",
                              lambda: (pg_row_description([("c", 25)]) if i == 0 else
                                       pg_data_row(["x" * 1000]) for i in itertools.count()))
                sock.sendall(valid)
            else:
                tag = {"BEGIN": "BEGIN", "COMMIT": "COMMIT", "ROLLBACK": "ROLLBACK",
                       "SET": "SET", "START": "START TRANSACTION"}.get(word, word or "EMPTY")
                sock.sendall(pg_command_complete(tag) + pg_ready())
            continue
        if failed and kind != b"S":
            continue
        if kind == b"P":
            log("prepare")
            name, rest = body.split(b"\0", 1)
            selects[name] = rest.lstrip().upper().startswith(b"SELECT")
            valid = pg_parse_complete()
            if stage("prepare"):
                misbehave(sock, args.mode, valid + pg_ready(), pg_msg(b"1", b"extra") + pg_ready(),
                          b"1" + struct.pack("!I", 0x80000000),
                          lambda: (pg_notice("n" * 200) for i in itertools.count()))
            sock.sendall(valid)
        elif kind == b"B":
            log("execute")
            current = selects.get(body.split(b"\0")[1], False)
            if stage("execute"):
                misbehave(sock, args.mode, pg_select_answer(),
                          pg_msg(b"2", b"??") + pg_select_answer(),
                          b"2" + struct.pack("!I", 0xffffffff),
                          lambda: (pg_notice("n" * 200) for i in itertools.count()))
            sock.sendall(pg_bind_complete())
        elif kind == b"D":
            if body[:1] == b"S":
                sock.sendall(pg_param_description([20]) + pg_row_description([("c", 25)]))
            elif not current:
                sock.sendall(pg_no_data())
            else:
                head = pg_row_description([("c", 25)])
                if stage("fetch"):
                    rest = pg_data_row(["1"]) + pg_command_complete("SELECT 1") + pg_ready()
                    misbehave(sock, args.mode, head + rest,
                              head + pg_msg(b"D", struct.pack("!HI", 1, 5) + b"ab") + pg_ready(),
                              head + pg_msg(b"D", struct.pack("!HI", 1, 0x80000000) + b"ab") +
                              pg_ready(),
                              lambda: (head if i == 0 else pg_data_row(["r" * 500])
                                       for i in itertools.count()))
                sock.sendall(head)
                rows_left = 1
        elif kind == b"E":
            for _ in range(rows_left):
                sock.sendall(pg_data_row(["1"]))
            sock.sendall(pg_command_complete("SELECT %d" % rows_left if current else "UPDATE 1"))
            rows_left = 0
        elif kind == b"S":
            failed = False
            sock.sendall(pg_ready())
        elif kind == b"C":
            sock.sendall(pg_msg(b"3"))
        elif kind == b"H":
            pass
        else:
            sock.sendall(pg_error("08P01", "hostile server: unexpected message"))
            failed = True


def pg_copy(sock, bad_session):
    sock.sendall(pg_copy_in(1))
    rows = 0
    while True:
        kind = recv_exact(sock, 1)
        n = struct.unpack("!I", recv_exact(sock, 4))[0]
        body = recv_exact(sock, n - 4)
        if kind == b"d":
            rows += body.count(b"\n")
        elif kind == b"c":
            break
        elif kind == b"f":
            sock.sendall(pg_error("57014", "COPY from stdin failed") + pg_ready())
            return
    log("copy %d" % rows)
    valid = pg_command_complete("COPY %d" % rows) + pg_ready()
    if bad_session and args.stage == "copy":
        misbehave(sock, args.mode, valid, pg_msg(b"C", b"COPY 1") + valid,
                  b"C" + struct.pack("!I", 0x80000004),
                  lambda: (pg_notice("c" * 200) for i in itertools.count()))
    sock.sendall(valid)


# ---- MySQL -----------------------------------------------------------------

def my_read(sock):
    head = recv_exact(sock, 4)
    n = head[0] | head[1] << 8 | head[2] << 16
    return head[3], recv_exact(sock, n)


def my_session(sock, bad_session):
    def stage(name):
        return bad_session and args.stage == name

    valid = my_handshake()
    if stage("startup"):
        misbehave(sock, args.mode, valid, my_packet(b"\x09junk", 0),
                  b"\xff\xff\xff\x00" + valid[4:],
                  lambda: (my_packet(b"\x0a" + b"v" * 60000, 0) for i in itertools.count()))
    sock.sendall(valid)
    seq, resp = my_read(sock)
    valid = my_ok(seq + 1)
    if stage("auth"):
        misbehave(sock, args.mode, valid, my_packet(b"\x05??", seq + 1),
                  my_packet(b"\0\xfe" + b"\xff" * 8 + b"\xfe" + b"\xff" * 8 + b"\2\0\0\0", seq + 1),
                  lambda: (my_packet(b"\xfe" + b"a" * 60000, seq + 1) for i in itertools.count()))
    sock.sendall(valid)
    log("session")
    next_id = 1
    stmts = {}
    while True:
        seq, p = my_read(sock)
        if not p:
            continue
        cmd = p[0]
        if cmd == 0x01:    # COM_QUIT
            raise Gone()
        if cmd == 0x03:    # COM_QUERY
            sql = p[1:].decode(errors="replace").strip()
            word = sql.split(None, 1)[0].upper() if sql else ""
            log("query " + word)
            if word == "LOAD":
                my_load(sock, bad_session)
            elif "@@max_allowed_packet" in sql:  # the driver's bulk load asks
                sock.sendall(my_text_result(["m", "l"], ["16777216", "1"]))
            elif word in ("SELECT", "SHOW"):
                valid = my_result(["1"], binary=False)
                if stage("query"):
                    misbehave(sock, args.mode, valid, my_packet(b"\x01", 1) + my_packet(b"\x07x", 2),
                              my_packet(b"\xfe" + b"\xff" * 8, 1),
                              lambda: ((my_result([], binary=False)[:-9] if i == 0 else
                                        my_text_row(["x" * 1000], (i + 3) & 0xff))
                                       for i in itertools.count()))
                sock.sendall(valid)
            else:
                sock.sendall(my_ok(1))
        elif cmd == 0x16:  # COM_STMT_PREPARE
            sql = p[1:].decode(errors="replace")
            log("prepare")
            nparams = sql.count("?")
            ncols = 1 if sql.strip().upper().startswith("SELECT") else 0
            stmts[next_id] = ncols
            valid = my_prepare_ok(next_id, ncols, nparams)
            next_id += 1
            if stage("prepare"):
                misbehave(sock, args.mode, valid, my_packet(b"\x00\x01", 1),
                          my_packet(b"\0" + struct.pack("<IHHBH", next_id - 1, 0xffff, 0xffff, 0, 0), 1),
                          lambda: (my_coldef(i & 0xff, "p", T_LONGLONG) for i in itertools.count()))
            sock.sendall(valid)
        elif cmd == 0x17:  # COM_STMT_EXECUTE
            stmt_id = struct.unpack("<I", p[1:5])[0]
            log("execute")
            ncols = stmts.get(stmt_id, 0)
            valid = my_result(["1"]) if ncols else my_ok(1, 1)
            if stage("execute"):
                misbehave(sock, args.mode, valid, my_ok(5, 1),  # sequence id 5, not 1
                          my_packet(b"\xfe" + b"\xff" * 8, 1),
                          lambda: (my_packet(b"\xff\xff\xff\x01\x01", (i + 1) & 0xff)
                                   for i in itertools.count()))
            if stage("fetch") and ncols:
                head = my_result([])[:-9]   # count, definition, EOF
                misbehave(sock, args.mode, valid,
                          head + my_packet(b"\0\0\x05ab", 4) + my_eof(5),
                          head + my_packet(b"\0\0\xfe" + b"\xff" * 8 + b"ab", 4) + my_eof(5),
                          lambda: (head if i == 0 else my_binary_row(["r" * 500], (i + 3) & 0xff)
                                   for i in itertools.count()))
            sock.sendall(valid)
        elif cmd == 0x19:  # COM_STMT_CLOSE: no answer
            pass
        elif cmd in (0x0e, 0x1a, 0x02, 0x1b, 0x11):  # PING, STMT_RESET, INIT_DB, SET_OPTION, CHANGE_USER
            sock.sendall(my_ok(1) if cmd != 0x1b else my_eof(1))
        else:
            sock.sendall(my_err(1, 1047, "08S01", "hostile server: unknown command"))


def my_load(sock, bad_session):
    sock.sendall(my_packet(b"\xfbsbench.data", 1))
    rows = 0
    seq = 2
    while True:
        s, data = my_read(sock)
        seq = s + 1
        if not data:
            break
        rows += data.count(b"\n")
    log("copy %d" % rows)
    valid = my_ok(seq, rows)
    if bad_session and args.stage == "copy":
        misbehave(sock, args.mode, valid, my_packet(b"\x09", seq),
                  b"\xff\xff\xff" + bytes([seq]) + b"\0" * 16,  # 16 MB claimed, 16 sent
                  lambda: (my_packet(b"\xff\xff\xff\x01\x01", (seq + i) & 0xff) for i in itertools.count()))
    sock.sendall(valid)


# ---- main ------------------------------------------------------------------

def serve(sock):
    global sessions
    with lock:
        sessions += 1
        n = sessions
    bad = args.times == 0 or n <= args.times
    try:
        (pg_session if args.proto == "pg" else my_session)(sock, bad)
    except (Gone, ConnectionError, BrokenPipeError, OSError):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def main():
    global args
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proto", choices=("pg", "mysql"), required=True)
    ap.add_argument("--stage", default="none")
    ap.add_argument("--mode", default="garbage")
    ap.add_argument("--times", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    args = ap.parse_args()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(256)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(tmp, args.port_file)
    while True:
        s, _ = ls.accept()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(s,), daemon=True).start()


if __name__ == "__main__":
    main()
