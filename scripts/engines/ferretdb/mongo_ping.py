#!/usr/bin/env python3
"""Dependency-free MongoDB wire-protocol probe (OP_MSG over a raw socket).

    mongo_ping.py [--host H] [--port P] [--timeout S] [--smoke]

Exit 0 when `{ping: 1}` answers ok: 1. With --smoke it also inserts, finds and
drops a document in database `engines_smoke`. Used by scripts/engines/ferretdb.sh.
"""
import argparse
import socket
import struct
import sys

OP_MSG = 2013


def _cstring(s):
    return s.encode() + b"\x00"


def bson_encode(doc):
    out = b""
    for key, value in doc.items():
        k = _cstring(key)
        if isinstance(value, bool):
            out += b"\x08" + k + (b"\x01" if value else b"\x00")
        elif isinstance(value, int):
            if -(2**31) <= value < 2**31:
                out += b"\x10" + k + struct.pack("<i", value)
            else:
                out += b"\x12" + k + struct.pack("<q", value)
        elif isinstance(value, float):
            out += b"\x01" + k + struct.pack("<d", value)
        elif isinstance(value, str):
            b = value.encode()
            out += b"\x02" + k + struct.pack("<i", len(b) + 1) + b + b"\x00"
        elif isinstance(value, dict):
            out += b"\x03" + k + bson_encode(value)
        elif isinstance(value, (list, tuple)):
            out += b"\x04" + k + bson_encode({str(i): v for i, v in enumerate(value)})
        elif value is None:
            out += b"\x0a" + k
        else:
            raise TypeError("unsupported BSON value: %r" % (value,))
    return struct.pack("<i", len(out) + 5) + out + b"\x00"


def bson_decode(data, pos=0):
    (size,) = struct.unpack_from("<i", data, pos)
    end = pos + size - 1
    pos += 4
    doc = {}
    while pos < end:
        t = data[pos]
        pos += 1
        nul = data.index(b"\x00", pos)
        key = data[pos:nul].decode()
        pos = nul + 1
        if t == 0x01:
            (v,) = struct.unpack_from("<d", data, pos); pos += 8
        elif t in (0x02, 0x0D, 0x0E):
            (n,) = struct.unpack_from("<i", data, pos)
            v = data[pos + 4:pos + 3 + n].decode(errors="replace"); pos += 4 + n
        elif t in (0x03, 0x04):
            (n,) = struct.unpack_from("<i", data, pos)
            v = bson_decode(data, pos); pos += n
            if t == 0x04:
                v = list(v.values())
        elif t == 0x05:
            (n,) = struct.unpack_from("<i", data, pos)
            v = data[pos + 5:pos + 5 + n]; pos += 5 + n
        elif t == 0x07:
            v = data[pos:pos + 12].hex(); pos += 12
        elif t == 0x08:
            v = data[pos] == 1; pos += 1
        elif t in (0x09, 0x11, 0x12):
            (v,) = struct.unpack_from("<q", data, pos); pos += 8
        elif t in (0x0A, 0x06, 0x7F, 0xFF):
            v = None
        elif t == 0x10:
            (v,) = struct.unpack_from("<i", data, pos); pos += 4
        elif t == 0x13:
            v = data[pos:pos + 16]; pos += 16
        else:
            raise ValueError("unsupported BSON type 0x%02x" % t)
        doc[key] = v
    return doc


class Conn:
    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.request_id = 0

    def _recv(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("connection closed by server")
            buf += chunk
        return buf

    def command(self, db, cmd):
        self.request_id += 1
        body = dict(cmd)
        body["$db"] = db
        payload = struct.pack("<I", 0) + b"\x00" + bson_encode(body)
        header = struct.pack("<iiii", 16 + len(payload), self.request_id, 0, OP_MSG)
        self.sock.sendall(header + payload)
        length, _, response_to, opcode = struct.unpack("<iiii", self._recv(16))
        data = self._recv(length - 16)
        if opcode != OP_MSG or response_to != self.request_id:
            raise ValueError("unexpected reply opcode=%d responseTo=%d" % (opcode, response_to))
        if data[4] != 0:
            raise ValueError("unexpected OP_MSG section kind %d" % data[4])
        return bson_decode(data, 5)

    def close(self):
        self.sock.close()


def check(reply, what):
    if reply.get("ok") not in (1, 1.0, True):
        raise RuntimeError("%s failed: %r" % (what, reply))
    return reply


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=27017)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    try:
        c = Conn(args.host, args.port, args.timeout)
        try:
            check(c.command("admin", {"ping": 1}), "ping")
            if args.smoke:
                hello = c.command("admin", {"hello": 1})
                build = c.command("admin", {"buildInfo": 1})
                db, coll = "engines_smoke", "smoke"
                c.command(db, {"drop": coll})
                check(c.command(db, {"insert": coll, "documents": [{"_id": "a", "n": 1}, {"_id": "b", "n": 2}]}), "insert")
                check(c.command(db, {"createIndexes": coll, "indexes": [{"key": {"n": 1}, "name": "n_1", "unique": True}]}), "createIndexes")
                upd = check(c.command(db, {"findAndModify": coll, "query": {"_id": "a"}, "update": {"$inc": {"n": 10}}, "new": True}), "findAndModify")
                found = check(c.command(db, {"find": coll, "filter": {"n": {"$gte": 2}}, "sort": {"_id": 1}}), "find")
                docs = found["cursor"]["firstBatch"]
                if [d["_id"] for d in docs] != ["a", "b"] or upd["value"]["n"] != 11:
                    raise RuntimeError("unexpected results: %r / %r" % (docs, upd))
                check(c.command(db, {"dropDatabase": 1}), "dropDatabase")
                if not args.quiet:
                    print("mongo smoke OK: maxWireVersion=%s version=%s ferretdb=%s docs=%r" % (
                        hello.get("maxWireVersion"), build.get("version"),
                        (build.get("ferretdb") or {}).get("version"), docs))
            elif not args.quiet:
                print("ping ok")
        finally:
            c.close()
    except Exception as e:  # noqa: BLE001 - probe: any failure means "not ready"
        if not args.quiet:
            print("mongo probe failed: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
