#!/usr/bin/env python3
"""folded_to_pprof.py < FOLDED > PROFILE.pb.gz

The converter a user without prof-symbolize --format=pprof would reach
for after perf script | stackcollapse-perf.pl: each distinct frame name
becomes a function with one location, each folded line a sample of its
count.  Only names survive folding: no addresses, mappings or build-ids.
For the pprof benchmark only (tests/bench/pprof.sh)."""
import gzip
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, n):
    return varint(num << 3) + varint(n)


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def packed(num, values):
    return field_bytes(num, b"".join(varint(v) for v in values))


def main():
    strings = {"": 0}
    names = []

    def sid(s):
        if s not in strings:
            strings[s] = len(strings)
        return strings[s]

    funcs = {}
    out = bytearray()
    # Profile.sample_type (1): samples/count.
    out += field_bytes(1, field_varint(1, sid("samples")) + field_varint(2, sid("count")))
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\r\n")
        if not line or line.startswith(b"#"):
            continue
        stack, _, count = line.rpartition(b" ")
        ids = []
        for frame in reversed(stack.split(b";")):
            name = frame.decode("utf-8", "replace")
            if name not in funcs:
                funcs[name] = len(funcs) + 1
                names.append(name)
            ids.append(funcs[name])
        # Profile.sample (2): location_id (1), value (2).
        out += field_bytes(2, packed(1, ids) + packed(2, [int(count)]))
    for i, name in enumerate(names, 1):
        # Location (4): id (1), line (4) { function_id (1) }; Function (5):
        # id (1), name (2).
        out += field_bytes(4, field_varint(1, i) + field_bytes(4, field_varint(1, i)))
        out += field_bytes(5, field_varint(1, i) + field_varint(2, sid(name)))
    for s in strings:  # string_table (6), "" first
        out += field_bytes(6, s.encode())
    sys.stdout.buffer.write(gzip.compress(bytes(out)))


main()
