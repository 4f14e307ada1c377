#!/usr/bin/env python3
"""Differential corpus for the TOML reader: random valid TOML documents and mutations of
them (truncations, byte flips, inserted brackets, quotes, NULs, control characters,
non-UTF-8 bytes, duplicated and swapped lines), each with the verdict of Python's
tomllib (the standard library's TOML 1.0 parser) and, when accepted, its value tree in a
canonical text form that Tests/TOMLTests/CanonicalForm.swift reproduces.

    python3 Tests/TOMLTests/generate_corpus.py --seed 1 --count 3000 --out Tests/TOMLTests/Corpus/corpus.bin

Deterministic for a seed (printed on stderr). Deliberate differences from tomllib, which the
verdicts take into account: integers outside the 64-bit range are rejected (the TOML spec
requires it; tomllib keeps Python's big integers). Documents that exhaust Python's recursion
are left out.

Record format: `doc <id> accept|reject <n>\\n` + n bytes + `\\n`, and after an accepted
document `canon <n>\\n` + n bytes + `\\n`.
"""
import argparse
import datetime
import random
import struct
import sys
import tomllib

# ---------------------------------------------------------------- canonical form

def esc(text):
    out = ['"']
    for ch in text:
        cp = ord(ch)
        if 0x20 <= cp < 0x7F and ch not in '"\\':
            out.append(ch)
        else:
            out.append("\\u{%X}" % cp)
    out.append('"')
    return "".join(out)


def time_text(t):
    return "%02d:%02d:%02d.%06d" % (t.hour, t.minute, t.second, t.microsecond)


def canon(v):
    if isinstance(v, dict):
        return "{" + ",".join(esc(k) + ":" + canon(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, str):
        return "s" + esc(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return "i%d" % v
    if isinstance(v, float):
        return "fnan" if v != v else "f" + struct.pack(">d", v).hex()
    if isinstance(v, datetime.datetime):
        text = "%04d-%02d-%02dT%s" % (v.year, v.month, v.day, time_text(v))
        if v.tzinfo is None:
            return "ldt" + text
        return "odt" + text + "@%d" % (v.utcoffset().total_seconds() // 60)
    if isinstance(v, datetime.date):
        return "ld%04d-%02d-%02d" % (v.year, v.month, v.day)
    if isinstance(v, datetime.time):
        return "lt" + time_text(v)
    raise TypeError(type(v))


def ints_fit(v):
    if isinstance(v, dict):
        return all(ints_fit(x) for x in v.values())
    if isinstance(v, list):
        return all(ints_fit(x) for x in v)
    if isinstance(v, int) and not isinstance(v, bool):
        return -(1 << 63) <= v < (1 << 63)
    return True


def verdict(data):
    """(accepted, canonical text) by tomllib, or None when the document is left out."""
    try:
        value = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return (False, None)
    except RecursionError:
        return None
    if not ints_fit(value):
        return (False, None)
    return (True, canon(value))

# ---------------------------------------------------------------- valid documents

BARE = "abcxyzABZ019_-"


class Gen:
    def __init__(self, rng):
        self.r = rng

    def bare_key(self):
        return "".join(self.r.choice(BARE) for _ in range(self.r.randint(1, 6)))

    def key_part(self):
        c = self.r.random()
        if c < 0.7:
            return self.bare_key()
        if c < 0.85:
            return self.basic_string(short=True)
        return "'" + self.r.choice(["", "a b", "é", "x.y", "ключ", "#", "=", "a'"[:1]]) + "'"

    def key(self):
        parts = [self.key_part() for _ in range(self.r.choice([1, 1, 1, 2, 3]))]
        dot = self.r.choice([".", ".", " . ", ". "])
        return dot.join(parts)

    def basic_string(self, short=False):
        pieces = ["a", "Z", " ", "é", "日本", "😀", "\\n", "\\t", "\\\\", '\\"', "\\u00e9", "\\U0001F600",
                  "\\b", "\\f", "\\r", "\\u0000", "\\u001b", "#", "'", "\t", "\\u007F", "\\u2028"]
        n = self.r.randint(0, 3 if short else 8)
        return '"' + "".join(self.r.choice(pieces) for _ in range(n)) + '"'

    def string(self):
        c = self.r.random()
        if c < 0.5:
            return self.basic_string()
        if c < 0.7:
            return "'" + self.r.choice(["", "C:\\path", "a \"q\" b", "\\n stays", "tab\there"]) + "'"
        if c < 0.85:
            body = self.r.choice(["", "\n", "a\nb", "line \\\n   continued", 'one "quote"', 'two ""', "x\\ty",
                                  "trailing \\  \n  next", "\\u00e9\n"])
            ends = self.r.choice(['"""', '""""', '"""""'])
            return '"""' + self.r.choice(["", "\n"]) + body + ends
        body = self.r.choice(["", "\n", "raw \\n\nline", "it's", "''two", "a\tb"])
        return "'''" + self.r.choice(["", "\n"]) + body + self.r.choice(["'''", "''''", "'''''"])

    def integer(self):
        r = self.r
        c = r.random()
        if c < 0.4:
            return r.choice(["", "+", "-"]) + str(r.choice([0, 1, 7, 42, 300, 5000, 2 ** 31, 2 ** 63 - 1, 2 ** 63, 10 ** 19]))
        if c < 0.55:
            return r.choice(["1_000", "5_349_221", "1_2_3_4", "-9_223_372_036_854_775_808", "-9223372036854775809"])
        if c < 0.7:
            return "0x" + r.choice(["DEAD_BEEF", "deadbeef", "7FFFFFFFFFFFFFFF", "8000000000000000", "0", "00ff"])
        if c < 0.85:
            return "0o" + r.choice(["755", "0_1", "777777777777777777777", "1777777777777777777777"])
        return "0b" + r.choice(["1", "1101_0110", "0"])

    def float(self):
        return self.r.choice(["3.14", "-0.01", "+1.0", "5e+22", "1e06", "-2E-2", "6.626e-34", "224_617.445_991_228",
                              "0.0", "-0.0", "+0.0", "1e400", "-1e400", "1e-400", "inf", "+inf", "-inf", "nan", "+nan",
                              "-nan", "0e0", "9_9.9_9e1_0", "1.7976931348623157e308", "4.9e-324"])

    def date_time(self):
        r = self.r
        date = r.choice(["1979-05-27", "2000-02-29", "1900-02-28", "0001-01-01", "9999-12-31", "2024-12-31"])
        time = r.choice(["07:32:00", "00:32:00.999999", "23:59:59.1", "00:00:00.123456789", "12:00:00"])
        c = r.random()
        if c < 0.25:
            return date
        if c < 0.4:
            return time
        dt = date + r.choice(["T", "t", " "]) + time
        if c < 0.6:
            return dt
        return dt + r.choice(["Z", "z", "+00:00", "-07:00", "+05:30", "-00:00", "+23:59"])

    def scalar(self):
        return self.r.choice([self.string, self.integer, self.float, self.date_time,
                              lambda: self.r.choice(["true", "false"])])()

    def value(self, depth=0):
        c = self.r.random()
        if depth < 4 and c < 0.12:
            return self.array(depth + 1)
        if depth < 4 and c < 0.2:
            return self.inline_table(depth + 1)
        return self.scalar()

    def array(self, depth):
        n = self.r.randint(0, 4)
        items = [self.value(depth) for _ in range(n)]
        if self.r.random() < 0.3:
            sep = self.r.choice([",\n  ", ", # comment\n", ",\r\n"])
        else:
            sep = self.r.choice([",", ", ", " , "])
        trail = self.r.choice(["", ",", "\n"]) if n else ""
        return "[" + sep.join(items) + trail + "]"

    def inline_table(self, depth):
        keys = []
        for _ in range(self.r.randint(0, 3)):
            k = self.key()
            if k not in keys:
                keys.append(k)
        return "{" + ", ".join("%s = %s" % (k, self.value(depth)) for k in keys) + (" }" if keys else "}")

    def comment(self):
        return self.r.choice(["", "", " # note", "# é ünïcode", "\t#\ttabbed", " #"])

    def document(self):
        r = self.r
        lines = []
        used = set()

        def kv():
            k = self.key()
            if k in used:
                return
            used.add(k)
            lines.append("%s%s = %s%s" % (r.choice(["", "  ", "\t"]), k, self.value(), self.comment()))

        for _ in range(r.randint(0, 3)):
            kv()
        for _ in range(r.randint(0, 3)):
            used = set()
            name = self.key()
            if r.random() < 0.3:
                lines.append("[[%s]]%s" % (name, self.comment()))
            else:
                lines.append("[%s]%s" % (r.choice(["", " "]) + name + r.choice(["", " "]), self.comment()))
            for _ in range(r.randint(0, 3)):
                kv()
            if r.random() < 0.2:
                lines.append("")
        newline = "\r\n" if r.random() < 0.1 else "\n"
        return newline.join(lines) + r.choice(["", newline])

# ---------------------------------------------------------------- handwritten cases

HANDWRITTEN = [
    # malformed table headers and NUL bytes
    b"[\n", b"[#]\n", b"[=]\n", b"[.]\n", b"[[\n", b"[\xc3\xa9]\n", b"[[", b"[", b"[#]", b"[=]", b"[.]",
    b'board = "simulator"\x00foo = 1\n', b'board = "simulator"\n\x00foo = 1\n',
    b"[a]\n[a]\n", b"[a.b]\n[a]\n", b"[a]\nb.c = 1\n[a.b]\n", b"[a]\nb.c = 1\n[a.b.d]\n",
    b"a.b = 1\n[a]\n", b"a.b = 1\n[a.c]\n", b"[a.b.c]\n[a]\nb.d = 1\n", b"[a.b.c]\n[a]\nb.d = 1\n[a.b]\n",
    b"[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", b"[[a]]\n[a]\n", b"[a]\n[[a]]\n", b"a = []\n[[a]]\n", b"a = {}\n[a]\n",
    b"a = {}\n[a.b]\n", b"a = {b = 1}\na.c = 2\n", b"a = {b = {}, b.c = 1}\n", b"a = {b.c = 1, b.d = 2}\n",
    b"[[a]]\nb.c = 1\n[[a]]\n[a.b]\n", b"[[a]]\n[a.x]\n[[a.b]]\n[a.x]\n", b"[[a.b]]\n[a]\nb.c = 1\n",
    b"[[a.b]]\n[a]\n", b"a = 1\na = 2\n", b'"a" = 1\na = 2\n', b"'a' = 1\n\"a\" = 2\n", b'"\\u00e9" = 1\n"e\\u0301" = 2\n',
    b"a = {a = 1,}\n", b"a = {\n}\n", b"a = [1,]\n", b"a = [,]\n", b"a = [1,,2]\n", b"a = 1\r\n", b"a = 1\r", b"a = \"\r\"\n",
    b"a = 0x\n", b"a = 0x_1\n", b"a = 1__0\n", b"a = 01\n", b"a = 1.\n", b"a = .5\n", b"a = 1e\n", b"a = +0x1\n",
    b"a = 9223372036854775807\n", b"a = 9223372036854775808\n", b"a = -9223372036854775808\n", b"a = 0x8000000000000000\n",
    b"a = 2000-02-30\n", b"a = 2001-02-29\n", b"a = 0000-01-01\n", b"a = 1979-05-27T24:00:00\n", b"a = 23:59:60\n",
    b"a = 07:32\n", b"a = 1979-05-27T07:32:00+24:00\n", b"a = 1979-05-27T07:32:00+07:60\n", b"a = 1979-05-27 07:32\n",
    b'a = "\\ud800"\n', b'a = "\\U00110000"\n', b'a = "\\x41"\n', b'a = "\\u12"\n', b"a = '''\n'''''\n", b"a = '''''''\n",
    b'a = """"""""\n', b'a = """\\  \n  x"""\n', b'a = """\\ x"""\n', b"\xef\xbb\xbfa = 1\n", b"a = 1 # \x7f\n",
    b"a = 1 # \x01\n", b"# \xff\n", b"a = \"\xed\xa0\x80\"\n", b"a = \"\xc0\xaf\"\n", b"a = \"\xf4\x90\x80\x80\"\n",
    b"a = trueish\n", b"a = infinity\n", b"a = -nan\n", b"a = \"\"\"\na\r\nb\"\"\"\n", b"\"\"\"a\"\"\" = 1\n", b"a.\"\" = 1\n",
    b"= 1\n", b"a =\n", b"a = 1 b = 2\n", b"[a] b = 1\n", b"[ a . b ]\n", b"[[ a ]]\n", b"[ [a]]\n", b"[a]]\n",
    b"a = [" * 30 + b"]" * 30 + b"\n", b"a = {b = " * 30 + b"1" + b"}" * 30 + b"\n",
    b"a = [ # c\n 1, # d\n]\n", b"a = \"\x1b[31m\"\n", b"a = '\t'\n", b"\ta\t=\t1\t\n",
    b'a = """\n"""\n', b"a = '''\r\n'''\n", b'a = "\\U0010FFFF"\n', b"a = 1979-05-27T07:32:00.\n", b"a = 1979-05-27t07:32:00.5z\n",
    b"a=1", b"a = [1\n,2]\n", b"a = [\n#c\n]\n", b"[a]#c\n", b"a = 1#c", b'"a".b = 1\n', b"a . b = 1\n", b"a = { }\n",
    b"a = {  b = 1 , c = 2  }\n", b"a = -0\n", b"a = +0.0\n", b"a = 1E2\n", b"a = 1e+0_1\n", b"a = 0b102\n", b"a = 0o8\n",
    b'a = "\\e"\n', b"a = '''a''''\n", b'x = """a\\\n\n  b"""\n', b"a = [[]]\n", b"[[a.b]]\n[[a]]\n", b"[a.b.c]\n[a.b]\n[a.b]\n",
    b"a = 1979-05-27 07:32:00 \n", b"a = 07:32:00Z\n", b"a = 1979-05-27Z\n", b"a = 2024-02-29T00:00:00-00:00\n", b"a = 1_000.0_1e1_0\n",
    b"a = 0.1e\n", b"a = 1.e5\n", b"a = 1e5.0\n", b"a = -inf\nb = +nan\n", b"a = nan_\n", b'"" = 1\n', b"'' = 1\n[\"\"]\n",
    b"a = [1 2]\n", b"a = {b = 1 c = 2}\n", b"a = {b = [1,\n2]}\n", b'a = {b = """x"""}\n', b'a = """""""""\n',
]

# ---------------------------------------------------------------- mutations

INSERTS = [b"[", b"]", b"[[", b"]]", b"{", b"}", b'"', b"'", b'"""', b"'''", b"=", b".", b",", b"#", b"\\",
           b"\x00", b"\x01", b"\x08", b"\x1b", b"\x1f", b"\x7f", b"\r", b"\n", b"\t", b" ", b"\\u", b"\\U0011",
           b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xef\xbb\xbf", b"\xc2\x85", b"\xe2\x80\xa8", b"_", b"+", b"-",
           b"0", b"9", b"e", b"x", b":", b"T", b"Z", b"\r\n", b"[a]\n", b"a = 1\n"]


def mutate(rng, data):
    if not data:
        return rng.choice(INSERTS)
    i = rng.randrange(len(data) + 1)
    c = rng.random()
    if c < 0.2:
        return data[:i]
    if c < 0.35:
        j = min(len(data) - 1, i)
        return data[:j] + bytes([rng.randrange(256)]) + data[j + 1:]
    if c < 0.75:
        return data[:i] + rng.choice(INSERTS) + data[i:]
    if c < 0.85:
        return data[:i] + data[i + 1:]
    lines = data.split(b"\n")
    if c < 0.93:
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
    else:
        rng.shuffle(lines)
    return b"\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--out", default="-")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print("generate_corpus.py seed %d" % seed, file=sys.stderr)
    rng = random.Random(seed)
    gen = Gen(rng)
    docs = list(HANDWRITTEN)
    while len(docs) < args.count:
        doc = gen.document().encode("utf-8")
        docs.append(doc)
        for _ in range(rng.choice([1, 1, 2, 3])):
            doc = mutate(rng, doc)
            docs.append(doc)
    out = bytearray()
    accepted = 0
    for index, doc in enumerate(docs[:args.count]):
        v = verdict(doc)
        if v is None:
            continue
        ok, text = v
        accepted += ok
        out += b"doc %d %s %d\n" % (index, b"accept" if ok else b"reject", len(doc)) + doc + b"\n"
        if ok:
            t = text.encode("ascii")
            out += b"canon %d\n" % len(t) + t + b"\n"
    print("%d documents, %d accepted" % (min(len(docs), args.count), accepted), file=sys.stderr)
    if args.out == "-":
        sys.stdout.buffer.write(out)
    else:
        with open(args.out, "wb") as f:
            f.write(out)


if __name__ == "__main__":
    main()
