#!/usr/bin/env python3
"""make_corpus.py: writes the seed corpora of the wire-parser fuzz targets
(tests/fuzz/corpus/pgsql_wire, tests/fuzz/corpus/mysql_wire) from the
message builders of tests/hostile/protocol.py: well-formed answers of every
kind the fast paths read, and a few that lie (lengths of 2^31 and more,
sequence ids out of order, a truncated row).  The files are in the tree;
run this again only to change them:  python3 tests/fuzz/make_corpus.py"""

import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "hostile"))
from protocol import *  # noqa: E402,F401,F403


def write(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- pgsql_wire: byte 0 = flags (bit 0 simple, bit 1 pipelined, bits 2-7
# piece size), then the answer
def pg(name, answer, simple=0, pipelined=0, piece=3):
    write("pgsql_wire", name, bytes([simple | pipelined << 1 | piece << 2]) + answer)


sel = pg_select_answer(2, "hello")
pg("select", sel)
pg("select_bytewise", sel, piece=0)
pg("select_types", pg_bind_complete() +
   pg_row_description([("i", 23), ("t", 25), ("n", 1700), ("b", 20), ("v", 1043)]) +
   pg_notice("careful") + pg_data_row(["7", "x", "2.5", "-9000000000", None]) +
   pg_param_status("application_name", "x") + pg_data_row([None, "", "-1e3", "0", "z"]) +
   pg_command_complete("SELECT 2") + pg_ready())
pg("update", pg_bind_complete() + pg_no_data() + pg_command_complete("UPDATE 3") + pg_ready())
pg("insert", pg_bind_complete() + pg_no_data() + pg_command_complete("INSERT 0 5") + pg_ready())
pg("error", pg_bind_complete() + pg_error("40P01", "deadlock detected") + pg_ready(b"E"))
pg("error_after_ready", pg_command_complete("COMMIT") + pg_ready() +
   pg_error("57P01", "terminating connection due to administrator command", "FATAL"), simple=1)
pg("empty", pg_bind_complete() + pg_no_data() + pg_msg(b"I") + pg_ready())
pg("simple_two", pg_command_complete("BEGIN") + pg_row_description([("c", 23)]) +
   pg_data_row(["1"]) + pg_command_complete("SELECT 1") + pg_ready(b"T"), simple=1)
pg("copy_in", pg_copy_in(2) + pg_error("57014", "COPY from stdin failed") + pg_ready(), simple=1)
pg("copy_out", pg_msg(b"H", b"\0\0\1\0\0") + pg_msg(b"d", b"1\tx\n") + pg_msg(b"c") +
   pg_command_complete("COPY 1") + pg_ready(), simple=1)
pg("notify", pg_command_complete("UPDATE 1") + pg_ready() +
   pg_msg(b"A", struct.pack("!I", 9) + cstr("ch") + cstr("payload")), simple=1)
pg("pipelined", pg_select_answer(1) + pg_bind_complete() + pg_no_data() +
   pg_command_complete("DELETE 1") + pg_ready(), pipelined=1, simple=1)
# lies
pg("lie_msg_len", pg_bind_complete() + b"D" + struct.pack("!I", 0x80000000) + b"\0\1")
pg("lie_field_len", pg_bind_complete() + pg_row_description([("c", 25)]) +
   pg_msg(b"D", struct.pack("!HI", 1, 0x7fffffff) + b"abc") + pg_ready())
pg("lie_nfields", pg_bind_complete() + pg_row_description([("c", 25)]) +
   pg_msg(b"D", struct.pack("!H", 3) + struct.pack("!I", 1) + b"x") + pg_ready())
pg("lie_desc", pg_bind_complete() + pg_msg(b"T", struct.pack("!H", 0xffff) + b"c\0") + pg_ready())
pg("error_unterminated", pg_bind_complete() + pg_msg(b"E", b"SERROR\0CXX000\0Mno end") + pg_ready())

# ---- mysql_wire: byte 0 = flags (bit 0 binary, bit 1 DEPRECATE_EOF, bits
# 2-7 piece size), byte 1 = first sequence id, byte 2 = known columns (low 4
# bits) and binding choice (high 4 bits), 2 bytes per known column, answer
def my(name, answer, binary=1, deprecate_eof=0, piece=5, seq=1, known=(), choice=1):
    head = bytes([binary | deprecate_eof << 1 | piece << 2, seq, len(known) | choice << 4])
    for t, f in known:
        head += bytes([t, f])
    write("mysql_wire", name, head + answer)


my("ok", my_ok(1, 300, 70000, 3, 1))
my("ok_text", my_ok(1, 1), binary=0)
my("err", my_err(1, 1213, "40001", "Deadlock found"))
my("progress_err", my_packet(b"\xff\xff\xff\x01\x01", 1) + my_err(2, 1213, "40001", "x"))
my("rows", my_result(["a", None, "12345"]))
my("rows_bytewise", my_result(["a", "b"]), piece=0)
my("rows_text", my_result(["12", None], binary=0), binary=0)
my("rows_int_bind", my_result(["42", "-7"], typ=T_NEWDECIMAL), choice=2)
my("rows_double", my_packet(lenenc_int(1), 1) + my_coldef(2, "d", T_DOUBLE) + my_eof(3) +
   my_packet(b"\0\0" + struct.pack("<d", 1.5), 4) + my_eof(5), choice=3)
my("rows_longlong", my_packet(lenenc_int(2), 1) + my_coldef(2, "a", T_LONGLONG, 0x20) +
   my_coldef(3, "b", T_LONG) + my_eof(4) +
   my_packet(b"\0\0" + struct.pack("<qi", -1, -5), 5) + my_eof(6), choice=4)
# cached metadata (MariaDB): column count with flag 0, no definitions
my("cached", my_packet(b"\x01\x00", 1) + my_eof(2) + my_binary_row(["x"], 3) + my_eof(4),
   known=((T_VAR_STRING, 0),), choice=0)
my("deprecate_eof", my_packet(lenenc_int(1), 1) + my_coldef(2, "c", T_VAR_STRING) +
   my_binary_row(["x"], 3) + my_packet(b"\xfe\0\0\2\0\0\0", 4), deprecate_eof=1)
my("more_results", my_result(["a"])[:-9] + my_eof(5, status=0x0a) + my_ok(6, 1, status=0x0a) +
   my_packet(lenenc_int(1), 7) + my_coldef(8, "x", T_LONG) + my_eof(9, status=0x0a) +
   my_packet(b"\0\0" + struct.pack("<i", 9), 10) + my_eof(11))
my("err_after_rows", my_result(["a"])[:-9] + my_err(5, 1213, "40001", "Deadlock"))
# lies
my("lie_seq", my_ok(3, 1))
my("lie_lenenc", my_packet(b"\0\xfe" + b"\xff" * 8 + b"\0\2\0\0\0", 1))
my("lie_colcount", my_packet(b"\xfd\xff\xff\xff", 1))
my("lie_row_len", my_packet(lenenc_int(1), 1) + my_coldef(2, "c", T_VAR_STRING) + my_eof(3) +
   my_packet(b"\0\0\xfe" + b"\xff" * 8 + b"ab", 4) + my_eof(5))
my("lie_big_packet", b"\xff\xff\xff\x01" + b"\0" * 40)
my("local_infile", my_packet(b"\xfbfile.txt", 1))
