"""protocol.py: the bytes of PostgreSQL's frontend/backend protocol 3.0 and
MySQL's client/server protocol 4.1 that the hostile server sends and the
fuzz corpus generator writes (tests/fuzz/make_corpus.py): message builders,
no I/O.  Written from the protocols' documentation (PostgreSQL's "Message
Formats", MySQL's "Client/Server Protocol")."""

import struct

# ---- PostgreSQL ------------------------------------------------------------


def pg_msg(kind, body=b""):
    """One backend message: type byte, Int32 length (itself included), body."""
    return kind + struct.pack("!I", len(body) + 4) + body


def cstr(s):
    return (s.encode() if isinstance(s, str) else s) + b"\0"


def pg_auth_ok():
    return pg_msg(b"R", struct.pack("!I", 0))


def pg_param_status(name, value):
    return pg_msg(b"S", cstr(name) + cstr(value))


def pg_backend_key(pid=4242, key=1234):
    return pg_msg(b"K", struct.pack("!II", pid, key))


def pg_ready(status=b"I"):
    return pg_msg(b"Z", status)


def pg_startup_answer():
    """What a trusting server answers a startup message with."""
    out = pg_auth_ok()
    for k, v in (("server_version", "15.0"), ("server_encoding", "UTF8"),
                 ("client_encoding", "UTF8"), ("DateStyle", "ISO, MDY"),
                 ("integer_datetimes", "on"), ("standard_conforming_strings", "on"),
                 ("TimeZone", "UTC")):
        out += pg_param_status(k, v)
    return out + pg_backend_key() + pg_ready()


def pg_row_description(cols):
    """cols: [(name, type oid)], all in text format."""
    body = struct.pack("!H", len(cols))
    for name, oid in cols:
        body += cstr(name) + struct.pack("!IHIhiH", 0, 0, oid, -1, -1, 0)
    return pg_msg(b"T", body)


def pg_data_row(values):
    """values: [bytes or None]."""
    body = struct.pack("!H", len(values))
    for v in values:
        if v is None:
            body += struct.pack("!i", -1)
        else:
            v = v.encode() if isinstance(v, str) else v
            body += struct.pack("!I", len(v)) + v
    return pg_msg(b"D", body)


def pg_command_complete(tag):
    return pg_msg(b"C", cstr(tag))


def pg_error(state, message, severity="ERROR", kind=b"E"):
    body = (b"S" + cstr(severity) + b"V" + cstr(severity) + b"C" + cstr(state) +
            b"M" + cstr(message) + b"\0")
    return pg_msg(kind, body)


def pg_notice(message):
    return pg_error("01000", message, "WARNING", b"N")


def pg_parse_complete():
    return pg_msg(b"1")


def pg_bind_complete():
    return pg_msg(b"2")


def pg_no_data():
    return pg_msg(b"n")


def pg_param_description(oids):
    return pg_msg(b"t", struct.pack("!H", len(oids)) + b"".join(struct.pack("!I", o) for o in oids))


def pg_copy_in(ncols):
    return pg_msg(b"G", struct.pack("!BH", 0, ncols) + b"\0\0" * ncols)


def pg_select_answer(nrows=1, value="1"):
    """The answer to Bind/Describe portal/Execute/Sync of a one-column
    SELECT: what the fast path reads."""
    out = pg_bind_complete() + pg_row_description([("c", 25)])
    for _ in range(nrows):
        out += pg_data_row([value])
    return out + pg_command_complete("SELECT %d" % nrows) + pg_ready()


# ---- MySQL -----------------------------------------------------------------

CLIENT_LONG_PASSWORD = 1
CLIENT_CONNECT_WITH_DB = 8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_STATEMENTS = 0x10000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PS_MULTI_RESULTS = 0x40000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_PLUGIN_AUTH_LENENC = 0x200000
CLIENT_LOCAL_FILES = 0x80
SERVER_CAPS = (CLIENT_LONG_PASSWORD | CLIENT_CONNECT_WITH_DB | CLIENT_PROTOCOL_41 |
               CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_MULTI_STATEMENTS |
               CLIENT_MULTI_RESULTS | CLIENT_PS_MULTI_RESULTS | CLIENT_PLUGIN_AUTH |
               CLIENT_PLUGIN_AUTH_LENENC | CLIENT_LOCAL_FILES)

T_LONG, T_LONGLONG, T_DOUBLE, T_VAR_STRING, T_NEWDECIMAL = 3, 8, 5, 253, 246


def my_packet(payload, seq):
    """One physical packet (payload under 16 MB)."""
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xff]) + payload


def lenenc_int(v):
    if v < 0xfb:
        return bytes([v])
    if v < 1 << 16:
        return b"\xfc" + struct.pack("<H", v)
    if v < 1 << 24:
        return b"\xfd" + struct.pack("<I", v)[:3]
    return b"\xfe" + struct.pack("<Q", v)


def lenenc_str(s):
    s = s.encode() if isinstance(s, str) else s
    return lenenc_int(len(s)) + s


def my_handshake(conn_id=7):
    """Handshake v10 offering mysql_native_password, no TLS."""
    scramble = b"abcdefghijklmnopqrst"
    p = bytes([10]) + cstr("10.11.99-MariaDB-hostile") + struct.pack("<I", conn_id)
    p += scramble[:8] + b"\0"
    p += struct.pack("<H", SERVER_CAPS & 0xffff) + bytes([45]) + struct.pack("<H", 2)
    p += struct.pack("<H", SERVER_CAPS >> 16) + bytes([21]) + b"\0" * 10
    p += scramble[8:] + b"\0" + cstr("mysql_native_password")
    return my_packet(p, 0)


def my_ok(seq, affected=0, insert_id=0, status=2, warnings=0):
    return my_packet(b"\0" + lenenc_int(affected) + lenenc_int(insert_id) +
                     struct.pack("<HH", status, warnings), seq)


def my_err(seq, code, state, message):
    return my_packet(b"\xff" + struct.pack("<H", code) + b"#" + state.encode() +
                     message.encode(), seq)


def my_eof(seq, status=2, warnings=0):
    return my_packet(b"\xfe" + struct.pack("<HH", warnings, status), seq)


def my_coldef(seq, name, typ, flags=0, length=11):
    p = (lenenc_str("def") + lenenc_str("sbtest") + lenenc_str("t") + lenenc_str("t") +
         lenenc_str(name) + lenenc_str(name))
    p += b"\x0c" + struct.pack("<HIBHB", 63, length, typ, flags, 0) + b"\0\0"
    return my_packet(p, seq)


def my_prepare_ok(stmt_id, ncols, nparams, seq=1):
    """COM_STMT_PREPARE's answer: the OK, parameter and column definitions,
    each list closed by an EOF."""
    out = my_packet(b"\0" + struct.pack("<IHHBH", stmt_id, ncols, nparams, 0, 0), seq)
    seq += 1
    for i in range(nparams):
        out += my_coldef(seq, "?", T_LONGLONG, 0x80)
        seq += 1
    if nparams:
        out += my_eof(seq)
        seq += 1
    for i in range(ncols):
        out += my_coldef(seq, "c%d" % i, T_VAR_STRING)
        seq += 1
    if ncols:
        out += my_eof(seq)
        seq += 1
    return out


def my_binary_row(values, seq):
    """A binary-protocol row of strings (None: NULL)."""
    n = len(values)
    bitmap = bytearray((n + 9) // 8)
    body = b""
    for i, v in enumerate(values):
        if v is None:
            bitmap[(i + 2) // 8] |= 1 << ((i + 2) % 8)
        else:
            body += lenenc_str(v)
    return my_packet(b"\0" + bytes(bitmap) + body, seq)


def my_text_row(values, seq):
    return my_packet(b"".join(b"\xfb" if v is None else lenenc_str(v) for v in values), seq)


def my_result(rows, seq=1, binary=True, typ=T_VAR_STRING):
    """A one-column result set with its metadata and EOF packets."""
    out = my_packet(lenenc_int(1), seq)
    out += my_coldef(seq + 1, "c", typ)
    out += my_eof(seq + 2)
    seq += 3
    for r in rows:
        out += (my_binary_row if binary else my_text_row)([r], seq)
        seq += 1
    return out + my_eof(seq)


def my_text_result(names, row, seq=1):
    """A text-protocol result set of one row with the given columns."""
    out = my_packet(lenenc_int(len(names)), seq)
    seq += 1
    for n in names:
        out += my_coldef(seq, n, T_VAR_STRING)
        seq += 1
    out += my_eof(seq) + my_text_row(row, seq + 1)
    return out + my_eof(seq + 2)
