#!/usr/bin/env python3
"""A seeded, replayable adversarial session against the real `costline serve` (issue 25).

The fuzzer starts the language server on stdio, initializes it the way an editor does
(workspace folder, inlay hints, code lenses, pull diagnostics, progress, configuration),
opens fixture documents and then sends a long random mix of incremental edits (hostile
text: garbage, huge lines, deep nests, absurd HPF directives, INCLUDEs of devices and a
FIFO, CR-only line ends, lone surrogates, NUL bytes), requests (inlay hints, hover, code
lenses, pull diagnostics, code actions), cancellations and settings changes. It checks
what comes back and reports crashes, wedged and slow requests, error answers (an
InternalError is a caught panic), positions outside the document, the server's memory
and drift (results after many edits that differ from a fresh server's on the same text).

Everything the session sends is decided by `random.Random(seed)` (timing only decides
when, never what), and every message sent is recorded (`--record`), so that a session can
be sent again (`--replay`). Python 3 standard library only. See README.md next to it.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import os
import queue
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

CONTENT_MODIFIED = -32801
REQUEST_CANCELLED = -32800
INTERNAL_ERROR = -32603
# Error codes that are part of a normal session.
NORMAL_ERRORS = {CONTENT_MODIFIED, REQUEST_CANCELLED}

FIFO_NAME = "fuzz.fifo"
SOURCE_EXTENSIONS = (".f90", ".f")
HEADER_EXTENSIONS = (".h", ".inc")

# ----------------------------------------------------------------------------------
# Text: lines and positions as the LSP specification counts them (line ends \n, \r\n
# and a lone \r; columns in UTF-16 code units).
# ----------------------------------------------------------------------------------

LINE_END = re.compile(r"\r\n|\r|\n")


class Table:
    """Line starts and content ends (code point indices) of one text."""

    __slots__ = ("starts", "ends")

    def __init__(self, text: str):
        starts = [0]
        ends = []
        for m in LINE_END.finditer(text):
            ends.append(m.start())
            starts.append(m.end())
        ends.append(len(text))
        self.starts = starts
        self.ends = ends

    def count(self) -> int:
        return len(self.starts)


_TABLES: collections.OrderedDict = collections.OrderedDict()


def table(text: str) -> Table:
    """The line table of `text`, cached for the few texts in use."""
    key = id(text)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is text:
        _TABLES.move_to_end(key)
        return hit[1]
    t = Table(text)
    _TABLES[key] = (text, t)
    while len(_TABLES) > 48:
        _TABLES.popitem(last=False)
    return t


def u16len(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def line_text(text: str, t: Table, line: int) -> str:
    return text[t.starts[line] : t.ends[line]]


def index_of(text: str, line: int, character: int) -> int:
    """The code point index of an LSP position, clamped as the server clamps: a line
    past the last gives the end of the text, a column past the end of its line the end
    of the line's content, a column inside a surrogate pair that character's start."""
    t = table(text)
    if line >= t.count():
        return len(text)
    s, e = t.starts[line], t.ends[line]
    seg = text[s:e]
    if seg.isascii():
        return s + min(character, e - s)
    units = 0
    for i, c in enumerate(seg):
        w = 2 if ord(c) > 0xFFFF else 1
        if units + w > character:
            return s + i
        units += w
    return e


def position_of(text: str, index: int) -> dict:
    t = table(text)
    # The last line start <= index.
    lo, hi = 0, t.count() - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if t.starts[mid] <= index:
            lo = mid
        else:
            hi = mid - 1
    index = min(index, t.ends[lo])
    return {"line": lo, "character": u16len(text[t.starts[lo] : index])}


def apply_change(text: str, change: dict) -> str:
    rng = change.get("range")
    if rng is None:
        return change["text"]
    a = index_of(text, rng["start"]["line"], rng["start"]["character"])
    b = index_of(text, rng["end"]["line"], rng["end"]["character"])
    b = max(a, b)
    return text[:a] + change["text"] + text[b:]


def position_problem(text: str, pos) -> str | None:
    """Why `pos` is not a position in `text` (None when it is one)."""
    if not isinstance(pos, dict):
        return f"not a position: {pos!r}"
    line, ch = pos.get("line"), pos.get("character")
    if not isinstance(line, int) or not isinstance(ch, int) or line < 0 or ch < 0:
        return f"bad position {pos!r}"
    t = table(text)
    if line >= t.count():
        return f"line {line} past the last line {t.count() - 1}"
    seg = line_text(text, t, line)
    n = u16len(seg)
    if ch > n:
        return f"character {ch} past the end of line {line} ({n} UTF-16 units)"
    if not seg.isascii() and ch > 0:
        # Inside a surrogate pair?
        prefix = seg.encode("utf-16-le", "surrogatepass")[: 2 * ch]
        last = int.from_bytes(prefix[-2:], "little")
        if 0xD800 <= last <= 0xDBFF:
            return f"character {ch} of line {line} splits a surrogate pair"
    return None


def range_problem(text: str, rng) -> str | None:
    if not isinstance(rng, dict):
        return f"not a range: {rng!r}"
    for end in ("start", "end"):
        p = position_problem(text, rng.get(end))
        if p:
            return f"{end}: {p}"
    s, e = rng["start"], rng["end"]
    if (s["line"], s["character"]) > (e["line"], e["character"]):
        return f"start {s} after end {e}"
    return None


def whole_range(text: str) -> dict:
    t = table(text)
    last = t.count() - 1
    return {
        "start": {"line": 0, "character": 0},
        "end": {"line": last, "character": u16len(line_text(text, t, last))},
    }


def has_lone_surrogate(s: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def without_surrogates(s: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


# ----------------------------------------------------------------------------------
# Framing.
# ----------------------------------------------------------------------------------


def encode_body(message: dict) -> str:
    """The JSON text of a message. Raw UTF-8 as editors send it, except when a string
    holds a lone surrogate: then ASCII with escapes, which writes the raw `\\udc00` that
    no UTF-8 encoder could."""
    try:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        body.encode("utf-8")
        return body
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"))


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream) -> tuple[dict | None, bytes | None, str | None]:
    """One framed message: (parsed, raw body, problem). (None, None, None) at the end."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None, None, None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return None, line, f"bad Content-Length header from the server: {line!r}"
    if length is None:
        return None, b"", "a frame from the server without Content-Length"
    body = stream.read(length)
    if len(body) < length:
        return None, None, None
    try:
        return json.loads(body), body, None
    except ValueError as e:
        return None, body, f"the server sent a body that is not JSON: {e}"


def limit_memory(mb: int):
    def apply():
        os.setsid()
        if mb > 0:
            resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))

    return apply


# ----------------------------------------------------------------------------------
# One server process.
# ----------------------------------------------------------------------------------


class Server:
    """A `costline serve` process: a reader thread per output stream; the owner's
    callbacks see every message (in the stdout thread)."""

    def __init__(self, binary: str, cwd: str, memory_mb: int, on_message, label: str):
        self.label = label
        self.proc = subprocess.Popen(
            [binary, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            preexec_fn=limit_memory(memory_mb),
        )
        self.started = time.monotonic()
        self.write_lock = threading.Lock()
        self.stderr_tail: collections.deque = collections.deque(maxlen=400)
        self.stderr_times: collections.deque = collections.deque(maxlen=400)
        self.eof_at = None
        # "panicked at FILE:LINE:COL:" lines and the message after each.
        self.panic_lines: list = []
        self.stderr_lines = 0
        self.eof = threading.Event()
        self.stderr_done = threading.Event()
        self.last_rx = time.monotonic()
        self.broken = False
        self.protocol_problems: list[str] = []
        # Error responses without an id (to messages the server could not read).
        self.orphan_errors: list = []
        self.on_message = on_message
        self.progress_active: set = set()
        self.progress_ended = 0
        # Writes go through a thread: a server that stops reading its input must not
        # block the session (it would never notice the wedge).
        self.outbox: queue.Queue = queue.Queue()
        self.queued_bytes = 0
        threading.Thread(target=self._write_stdin, daemon=True).start()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return not self.eof.is_set() and self.proc.poll() is None

    def write(self, data: bytes) -> bool:
        """Queues `data` for the server's input (in order)."""
        if self.broken:
            return False
        with self.write_lock:
            self.queued_bytes += len(data)
        self.outbox.put(data)
        return True

    def _write_stdin(self):
        while True:
            data = self.outbox.get()
            if data is None:
                return
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True
            with self.write_lock:
                self.queued_bytes -= len(data)

    def _read_stdout(self):
        stream = self.proc.stdout
        while True:
            try:
                msg, raw, problem = read_frame(stream)
            except (OSError, ValueError):
                break
            if msg is None and raw is None and problem is None:
                break
            self.last_rx = time.monotonic()
            if problem:
                self.protocol_problems.append(problem)
                continue
            if not isinstance(msg, dict):
                self.protocol_problems.append(f"a message that is not an object: {raw[:200]!r}")
                continue
            if msg.get("method") == "$/progress":
                value = (msg.get("params") or {}).get("value") or {}
                token = json.dumps((msg.get("params") or {}).get("token"))
                if value.get("kind") == "begin":
                    self.progress_active.add(token)
                elif value.get("kind") == "end":
                    self.progress_active.discard(token)
                    self.progress_ended += 1
            try:
                self.on_message(self, msg)
            except Exception as e:  # a bug of the fuzzer must not stop the reader
                self.protocol_problems.append(f"fuzzer error handling {msg.get('method')}: {e!r}")
        self.eof_at = time.monotonic()
        self.eof.set()

    def _read_stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stderr_tail.append(line)
            self.stderr_times.append(time.monotonic())
            if "panicked at" in line or self.panic_lines and self.panic_lines[-1].endswith(":"):
                if len(self.panic_lines) < 200:
                    self.panic_lines.append(line)
            self.stderr_lines += 1
        self.stderr_done.set()

    def last_words(self, seconds: float = 3.0) -> list:
        """The stderr lines of the last `seconds` before the output ended."""
        end = self.eof_at or time.monotonic()
        return [l for l, t in zip(self.stderr_tail, self.stderr_times) if t >= end - seconds]

    def rss_kb(self, field: str = "VmRSS") -> int | None:
        """The server's resident memory (VmHWM: its peak so far)."""
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def kill(self):
        """Ends this server (SIGKILL to its own process group: only what it started)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    self.proc.kill()
                except ProcessLookupError:
                    pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.broken = True
        self.outbox.put(None)

    def exit_status(self) -> str:
        rc = self.proc.poll()
        if rc is None:
            return "running"
        if rc < 0:
            try:
                return f"killed by {signal.Signals(-rc).name}"
            except ValueError:
                return f"killed by signal {-rc}"
        return f"exit code {rc}"


CRASH_LINE = re.compile(r"has overflowed its stack|memory allocation of|fatal runtime error|"
                        r"panicked at|SIGSEGV|Segmentation fault|Killed|out of memory")


def crash_signature(srv: Server) -> tuple[str, dict]:
    """Why a server ended: the telling stderr line of its last seconds (a stack
    overflow, a failed allocation, a panic outside the guarded handlers), or its exit
    status and the error it answered last to a message it could not read."""
    try:
        srv.proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    srv.stderr_done.wait(3)
    status = srv.exit_status()
    notable = [l for l in srv.last_words() if CRASH_LINE.search(l) and not l.startswith(" ")]
    if notable:
        sig = notable[0]
        sig = re.sub(r"thread '[^']*' \(\d+\)", "a thread", sig)
        sig = re.sub(r"\d+", "N", sig)[:200]
    else:
        sig = status
        if srv.orphan_errors:
            e = srv.orphan_errors[-1]
            sig += f" after answering {e.get('message')} ({e.get('code')}) to a message without id"
    detail = {"status": status, "stderr_tail": list(srv.stderr_tail)[-40:],
              "panicked_at": srv.panic_lines[-4:],
              "orphan_errors": srv.orphan_errors[-5:],
              "protocol_problems": srv.protocol_problems[-5:]}
    return sig, detail


# ----------------------------------------------------------------------------------
# What the session sends: hostile text and settings.
# ----------------------------------------------------------------------------------

GOOD_SETTINGS = [
    {},
    {"machine": "ib-hdr"},
    {"machine": "ipsc860", "params": {"n": 512, "p": 8}},
    {"machine": "eth-25g", "imbalanceThreshold": 0.1},
    {"params": {"n": 1000}, "findingShare": 0},
    {"machine": "multicore", "findingShare": 0.5, "params": {"np": 4, "m": 64}},
    {"imbalanceThreshold": 0.4, "params": []},
]


def bad_settings(ws: str, hazards: bool) -> list:
    devices = [{"machine": ws + "/" + FIFO_NAME}, {"machine": "/dev/zero"}] if hazards else []
    return devices + [
        {"machine": "nonexistent"},
        {"imbalanceThreshold": "nan"},
        {"imbalanceThreshold": -1},
        {"imbalanceThreshold": "x"},
        {"imbalanceThreshold": 1e308},
        {"params": {"n": 2**63 - 1, "p": 2**63 - 1}},
        {"params": {"n": -(2**63), "p": -1}},
        {"params": {"n": 2**64, "x y": 3, "": 1}},
        {"params": {"n": 0, "p": 0, "m": 0}},
        {"params": [1, 2]},
        {"findingShare": 5},
        {"findingShare": -0.5, "imbalanceThreshold": 0},
        {"hints": {"enable": "yes"}, "codeLens": False},
        {"include": ["/dev", "/proc/self", "../../../../../.."]},
        {"machine": ""},
        {"machine": "../../../../etc/passwd.toml"},
        {"costline": {"machine": "ipsc860", "params": {"n": 10**18}}},
        None,
        [],
        "costline",
    ]


FORTRAN_WORDS = [
    "do", "end do", "enddo", "if", "then", "else", "end if", "program", "end program",
    "subroutine", "end subroutine", "function", "module", "contains", "use", "call",
    "real", "integer", "dimension", "parameter", "forall", "where", "select case",
    "!HPF$", "!hpf$ independent", "x", "a(i, j)", "=", "+", "*", "(", ")", ",", "::",
    "&", "'", '"', ";", "1", "n", "i", "j", "k", "0.5d0", "1e300", "-1", "common /c/",
    "include 'a.h'", "#include \"dist.inc\"", "mpi_send", "call mpi_allreduce(",
]

DIRECTIVES = [
    "!HPF$ PROCESSORS P(2**40)",
    "!HPF$ PROCESSORS P(-4)",
    "!HPF$ PROCESSORS P(0)",
    "!HPF$ PROCESSORS P(2**62, 2**62)",
    "!HPF$ PROCESSORS P(NUMBER_OF_PROCESSORS() - NUMBER_OF_PROCESSORS())",
    "!HPF$ DISTRIBUTE (BLOCK) ONTO nowhere :: zz",
    "!HPF$ DISTRIBUTE a(BLOCK(0)) ONTO p",
    "!HPF$ DISTRIBUTE a(CYCLIC(-3), BLOCK(2**40)) ONTO p",
    "!HPF$ DISTRIBUTE a(BLOCK, BLOCK, BLOCK, BLOCK, BLOCK, BLOCK, BLOCK, BLOCK) ONTO p",
    "!HPF$ DISTRIBUTE",
    "!HPF$ DISTRIBUTE ::",
    "!HPF$ DISTRIBUTE a(",
    "!HPF$ ALIGN a(i) WITH a(i)",
    "!HPF$ ALIGN a(i, j) WITH t(j, i, i, i)",
    "!HPF$ ALIGN (k) WITH t1(2**62*k - 1) :: c",
    "!HPF$ ALIGN b WITH b",
    "!HPF$ TEMPLATE t(-5:-10)",
    "!HPF$ TEMPLATE, DISTRIBUTE(BLOCK) ONTO p :: t(2**40, 2**40)",
    "!HPF$ REDISTRIBUTE a(CYCLIC(0))",
    "!HPF$ REALIGN a(i) WITH t(i/0)",
    "!HPF$ INDEPENDENT, NEW(i, i, i), REDUCTION(",
    "!HPF$ DYNAMIC",
    "!HPF$ &&&&",
    "!HPF$ DISTRIBUTE a(BLOCK, &",
    "!HPF$ PROCESSORS :: pr(4), grid(2, 2), pr(8)",
    "!HPF$ INHERIT a",
    "!HPF$ SEQUENCE",
    "!hpf$ distribute (cyclic(2**31)) onto p :: a, b, c, d, e",
]

HAZARD_INCLUDES = ["/dev/zero", "/dev/stdin", "/etc/passwd", "/dev/urandom", "/proc/self/mem"]


class Generator:
    """Hostile text and random positions, all from one `random.Random`."""

    def __init__(self, rng: random.Random, fixtures: dict, ws: str, hazards: bool, skip=()):
        self.rng = rng
        self.skip = set(skip)
        self.fixtures = fixtures
        self.ws = ws
        self.hazards = hazards
        self.snippet_sources = [t for t in fixtures.values() if t.strip()]

    def snippet(self) -> str:
        text = self.rng.choice(self.snippet_sources)
        lines = text.splitlines(keepends=True)
        a = self.rng.randrange(len(lines))
        b = min(len(lines), a + self.rng.randint(1, 20))
        return "".join(lines[a:b])

    def garbage(self) -> str:
        r = self.rng
        n = r.choice([1, 5, 20, 100, 1000, 5000])
        kind = r.randrange(4)
        if kind == 0:  # bytes pasted as Latin-1
            return bytes(r.getrandbits(8) for _ in range(n)).decode("latin-1")
        if kind == 1:  # bytes decoded leniently as UTF-8
            return bytes(r.getrandbits(8) for _ in range(n)).decode("utf-8", "replace")
        if kind == 2:  # any code points (no surrogates, no byte-order mark)
            out = []
            for _ in range(n):
                c = r.choice([r.randrange(0x20, 0x7F), r.randrange(0x80, 0x800),
                              r.randrange(0x800, 0xD800), r.randrange(0xE000, 0xFEFF),
                              r.randrange(0x10000, 0x110000), r.randrange(0, 0x20)])
                out.append(chr(c))
            return "".join(out)
        # Fortran-ish word salad
        return " ".join(r.choice(FORTRAN_WORDS) for _ in range(n // 4 + 1)) + r.choice(["", "\n"])

    def long_line(self) -> str:
        r = self.rng
        n = r.randint(10_000, 200_000)
        kind = r.randrange(5)
        if kind == 0:
            body = "x = " + "a" * (n - 4)
        elif kind == 1:
            body = "!" + "".join(r.choice("abc ,()=+") for _ in range(min(n, 20_000))) * (n // 20_000 + 1)
        elif kind == 2:
            body = "      y = " + "+".join(["b(i)"] * (n // 5))
        elif kind == 3:
            body = "call f(" + ", ".join(["1"] * (n // 3)) + ")"
        else:
            body = "real :: " + ", ".join(f"v{i}(n)" for i in range(n // 8))
        return body[:n] + r.choice(["\n", "", "\r\n"])

    def unbalanced_do(self) -> str:
        r = self.rng
        parts = []
        for _ in range(r.randint(1, 12)):
            parts.append(r.choice(["do i = 1, n\n", "end do\n", "do\n", "enddo\n",
                                   "do while (.true.)\n", "do 10 i = 1, n\n", "10 continue\n",
                                   "do concurrent (i = 1:n)\n", "end\n", "end subroutine\n"]))
        return "".join(parts)

    def chain(self) -> str:
        n = self.rng.choice([10, 100, 1000, 10_000, 50_000])
        tail = self.rng.choice(["", ")", "\n", ")\n"])
        return "x = b(i, j" + "+1" * n + tail

    def nested_parens(self) -> str:
        d = self.rng.randint(1, 300)
        balanced = self.rng.random() < 0.7
        expr = "(" * d + "a(i)" + (")" * d if balanced else ")" * self.rng.randint(0, d))
        return f"x = {expr}\n"

    def do_nest(self) -> str:
        d = self.rng.randint(1, 300)
        close = d if self.rng.random() < 0.7 else self.rng.randint(0, d)
        head = "".join(f"do i{k} = 1, n\n" for k in range(d))
        body = "a(i0) = a(i0) + 1\n"
        return head + body + "end do\n" * close

    def directive(self) -> str:
        r = self.rng
        if r.random() < 0.15:
            n = r.randint(1000, 5000)
            lines = [f"!HPF$ DISTRIBUTE a{r.randrange(50)}({r.choice(['BLOCK', 'CYCLIC', '*', 'CYCLIC(7)'])}) ONTO p\n"
                     for _ in range(min(n, 50))]
            return "".join(lines[k % len(lines)] for k in range(n))
        return "".join(r.choice(DIRECTIVES) + "\n" for _ in range(r.randint(1, 6)))

    def include(self) -> str:
        r = self.rng
        choices = ["/etc/passwd", "nonexistent.inc", "..", "", "'", "/"]
        if self.hazards:
            choices += HAZARD_INCLUDES + [self.ws + "/" + FIFO_NAME, FIFO_NAME]
        name = r.choice(choices)
        form = r.randrange(3)
        if form == 0:
            return f"      INCLUDE '{name}'\n"
        if form == 1:
            return f"include \"{name}\"\n"
        return f"#include \"{name}\"\n"

    def cr_only(self) -> str:
        return self.snippet().replace("\r\n", "\n").replace("\n", "\r")

    def lone_surrogate(self) -> str:
        s = self.rng.choice(["\udc00", "\ud800", "x\udfffy", "\ud83d", "a\udc00\ud800b"])
        return f"! {s}\n" if self.rng.random() < 0.5 else s

    def nul(self) -> str:
        return self.rng.choice(["\x00", "x = 1\x00\n", "\x00" * 100, "!HPF$ \x00 DISTRIBUTE a(BLOCK)\n"])

    def text(self) -> tuple[str, str]:
        """(kind, text) of something to insert."""
        kinds = [
            ("snippet", 30), ("garbage", 10), ("long_line", 3), ("unbalanced_do", 6),
            ("chain", 3), ("nested_parens", 4), ("do_nest", 4), ("directive", 8),
            ("include", 2), ("cr_only", 3), ("lone_surrogate", 0.3), ("nul", 2),
            ("newline", 6), ("char", 12),
        ]
        kinds = [(k, w) for k, w in kinds if k not in self.skip]
        kind = self.rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        if kind == "newline":
            return kind, self.rng.choice(["\n", "\r\n", "\r", "\n\n"])
        if kind == "char":
            return kind, self.rng.choice("abcdefijnxyz0123456789 ()=+-*/,:!&'\"\t")
        return kind, getattr(self, kind)()

    def position(self, text: str, spill: bool = False) -> dict:
        """A random position in `text` (a code point boundary); with `spill`, sometimes a
        column or line past the end (for requests)."""
        r = self.rng
        t = table(text)
        line = r.randrange(t.count())
        seg = line_text(text, t, line)
        i = r.randint(0, len(seg))
        ch = u16len(seg[:i]) if not seg.isascii() else i
        if spill and r.random() < 0.1:
            which = r.randrange(3)
            if which == 0:
                return {"line": line, "character": ch + r.randint(1, 10_000)}
            if which == 1:
                return {"line": t.count() + r.randint(0, 100), "character": ch}
            return {"line": 2**31 - 1, "character": 2**31 - 1}
        return {"line": line, "character": ch}

    def range_in(self, text: str, spill: bool = False) -> dict:
        a = self.position(text, spill)
        r = self.rng
        if r.random() < 0.5:
            return {"start": a, "end": dict(a)}
        b = self.position(text, spill) if r.random() < 0.3 else None
        if b is None:
            # A few characters or lines further.
            t = table(text)
            start = min(index_of(text, a["line"], a["character"]), len(text))
            end = min(len(text), start + r.choice([1, 2, 5, 20, 200, 5000]))
            b = position_of(text, end)
            if t.count() == 0:
                b = a
        if (a["line"], a["character"]) > (b["line"], b["character"]):
            a, b = b, a
        return {"start": a, "end": b}


# ----------------------------------------------------------------------------------
# The session.
# ----------------------------------------------------------------------------------


class Doc:
    def __init__(self, uri: str, rel: str, text: str):
        self.uri = uri
        self.rel = rel
        self.original = text
        self.text = text
        self.version = 1
        # version -> text, for checking answers and pushed diagnostics.
        self.history: collections.OrderedDict = collections.OrderedDict()
        self.remember()

    def remember(self):
        self.history[self.version] = self.text
        while len(self.history) > 64:
            self.history.popitem(last=False)


class Pending:
    __slots__ = ("id", "method", "uri", "version", "text", "sent", "gen", "slow", "wedged",
                 "params", "cancelled", "step", "label")

    def __init__(self, rid, method, uri, version, text, gen, params, step, label):
        self.id = rid
        self.method = method
        self.uri = uri
        self.version = version
        self.text = text
        self.sent = time.monotonic()
        self.gen = gen
        self.slow = False
        self.wedged = False
        self.params = params
        self.cancelled = False
        self.step = step
        self.label = label


def short(value, n=300) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    return s if len(s) <= n else s[: n // 2] + f"...[{len(s)} chars]..." + s[-n // 4 :]


class Session:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.rng = random.Random(args.seed)
        self.t0 = time.monotonic()
        self.deadline = self.t0 + args.minutes * 60 if args.minutes else None
        self.lock = threading.Condition()
        self.pending: dict = {}
        self.done: collections.deque = collections.deque()
        self.next_id = 1
        self.step = 0
        self.edits = 0
        self.gen = 0
        self.server: Server | None = None
        self.docs: dict[str, Doc] = {}
        self.settings = {}
        self.recent_sent: collections.deque = collections.deque(maxlen=12)
        self.record = open(args.record, "w", encoding="utf-8") if args.record else None
        self.findings: list[dict] = []
        self.signatures: dict = {}
        self.latencies: dict = collections.defaultdict(list)
        self.slow: list = []
        self.last_capture = -1e9
        self.errors: collections.Counter = collections.Counter()
        self.normal_errors: collections.Counter = collections.Counter()
        self.requests_sent = 0
        self.answered = 0
        self.rss_samples: list = []
        self.rss_at_checkpoints: list = []
        self.checkpoints: list = []
        self.restarts: list = []
        self.messages_from_server: collections.Counter = collections.Counter()
        self.warnings_shown = 0
        self.shutdown_ok = None
        self.malformed_sent = 0
        self.kinds_sent: collections.Counter = collections.Counter()
        self.workspace = None
        self.answers: collections.OrderedDict = collections.OrderedDict()
        self.fixtures: dict = {}
        self.tmp = None
        self.wedged_in_gen = 0
        self.log_out = sys.stderr

    # -- setup ------------------------------------------------------------------

    def log(self, text: str):
        print(f"[{time.monotonic() - self.t0:7.1f}s] {text}", file=self.log_out, flush=True)

    def make_workspace(self):
        if self.args.workspace:
            ws = Path(self.args.workspace).resolve()
            ws.mkdir(parents=True, exist_ok=True)
        else:
            self.tmp = tempfile.mkdtemp(prefix="costline-fuzz-")
            ws = Path(self.tmp) / "ws"
            ws.mkdir()
            fixtures = REPO / "tests" / "fixtures"
            for sub in [] if self.args.bare else sorted(fixtures.iterdir()):
                if not sub.is_dir():
                    continue
                for f in sorted(sub.iterdir()):
                    if f.is_file() and f.suffix in SOURCE_EXTENSIONS + HEADER_EXTENSIONS:
                        (ws / sub.name).mkdir(exist_ok=True)
                        shutil.copyfile(f, ws / sub.name / f.name)
        fifo = ws / FIFO_NAME
        if not fifo.exists():
            try:
                os.mkfifo(fifo)
            except OSError as e:
                self.log(f"cannot create the FIFO {fifo}: {e}")
        self.workspace = str(ws)
        self.ws_uri = "file://" + self.workspace
        for f in sorted(ws.rglob("*")):
            if f.is_file() and f.suffix in SOURCE_EXTENSIONS and not f.name.startswith("."):
                rel = str(f.relative_to(ws))
                self.fixtures[rel] = f.read_bytes().decode("utf-8", "replace")
        if not self.fixtures and not (self.args.check or self.args.shrink):
            raise SystemExit(f"no Fortran sources in the workspace {ws}")

    # -- recording --------------------------------------------------------------

    def portable(self, body: str) -> str:
        return body.replace(self.ws_uri, "${WORKSPACE_URI}").replace(self.workspace, "${WORKSPACE}")

    def local(self, body: str) -> str:
        return body.replace("${WORKSPACE_URI}", self.ws_uri).replace("${WORKSPACE}", self.workspace)

    def note(self, kind: str, **fields):
        if self.record:
            fields = {"t": round(time.monotonic() - self.t0, 4), "kind": kind, **fields}
            self.record.write(json.dumps(fields, ensure_ascii=True) + "\n")
            self.record.flush()

    # -- sending ----------------------------------------------------------------

    def send(self, message: dict, final: bool = False, label: str | None = None,
             edit: bool = False) -> int | None:
        """Sends a message of the session (recorded); returns the request id."""
        body = encode_body(message)
        extra = {"final": True} if final else {}
        if edit:
            extra["edit"] = self.edits
        self.note("frame", body=self.portable(body), **extra)
        return self.send_body(body, label=label)

    def send_body(self, body: str, label: str | None = None) -> int | None:
        """Sends a framed body: applies it to the documents the session holds and
        registers a request, then writes it."""
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        rid = None
        if isinstance(message, dict):
            rid = self.track(message, label)
        self.recent_sent.append(short(body, 400))
        srv = self.server
        if srv is not None:
            srv.write(frame(body.encode("utf-8", "surrogatepass")))
        return rid

    def track(self, message: dict, label) -> int | None:
        method = message.get("method")
        params = message.get("params") or {}
        self.kinds_sent[method or "response"] += 1
        if method == "textDocument/didOpen":
            td = params["textDocument"]
            d = self.docs.get(td["uri"])
            if d is not None:
                d.text = td["text"]
                d.version = td["version"]
                d.remember()
        elif method == "textDocument/didChange":
            td = params["textDocument"]
            d = self.docs.get(td["uri"])
            if d is not None:
                text = d.text
                for change in params["contentChanges"]:
                    text = apply_change(text, change)
                d.text = text
                d.version = td["version"]
                d.remember()
        if "id" in message and method is not None:
            rid = message["id"]
            td = params.get("textDocument") if isinstance(params, dict) else None
            uri = td.get("uri") if isinstance(td, dict) else None
            d = self.docs.get(uri) if uri else None
            with self.lock:
                self.pending[rid] = Pending(
                    rid, method, uri, d.version if d else None, d.text if d else None,
                    self.gen, params, self.step, label)
            self.requests_sent += 1
            return rid
        if method == "$/cancelRequest":
            with self.lock:
                p = self.pending.get(params.get("id"))
                if p is not None:
                    p.cancelled = True
        return None

    def request(self, method: str, params, label: str | None = None) -> int:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, label=label)
        return rid

    def notify(self, method: str, params, edit: bool = False):
        self.send({"jsonrpc": "2.0", "method": method, "params": params}, edit=edit)

    # -- receiving (reader thread) ----------------------------------------------

    def on_message(self, srv: Server, msg: dict):
        if "method" in msg and "id" in msg:
            self.answer_server_request(srv, msg)
            return
        if "method" in msg:
            method = msg["method"]
            self.messages_from_server[method] += 1
            if method == "window/showMessage":
                self.warnings_shown += 1
            elif method == "textDocument/publishDiagnostics" and srv is self.server:
                self.done.append(("publish", msg))
            return
        if msg.get("id") is None and "error" in msg:
            srv.orphan_errors.append(msg["error"])
        with self.lock:
            p = self.pending.get(msg.get("id"))
            if p is None or p.gen != self.gen_of(srv):
                self.messages_from_server["response to no request"] += 1
                if msg.get("id") is None and "error" in msg:
                    self.done.append(("orphan_error", msg))
                return
            del self.pending[msg["id"]]
            self.done.append(("response", (p, msg, time.monotonic())))
            self.lock.notify_all()

    def gen_of(self, srv: Server) -> int:
        return getattr(srv, "gen", -1)

    def answer_server_request(self, srv: Server, msg: dict):
        method = msg["method"]
        self.messages_from_server[method] += 1
        result = None
        if method == "workspace/configuration":
            settings = getattr(srv, "settings", self.settings)
            items = (msg.get("params") or {}).get("items") or []
            result = [settings if (it or {}).get("section") == "costline" else {"costline": settings}
                      for it in items]
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        body = encode_body(reply)
        if srv is self.server:
            self.note("reply", body=self.portable(body))
        srv.write(frame(body.encode("utf-8", "surrogatepass")))

    # -- findings ---------------------------------------------------------------

    def finding(self, kind: str, signature: str, texts: dict | None = None, **detail):
        key = (kind, signature)
        count = self.signatures.get(key, 0) + 1
        self.signatures[key] = count
        if count == 1:
            entry = {"kind": kind, "signature": signature, "step": self.step, "edits": self.edits,
                     "t": round(time.monotonic() - self.t0, 2), "server": self.gen, **detail}
            self.findings.append(entry)
            self.log(f"FINDING {kind}: {signature}")
            if self.args.artifacts:
                entry["artifacts"] = self.save_artifacts(len(self.findings), kind, texts, entry)
        else:
            for f in self.findings:
                if f["kind"] == kind and f["signature"] == signature:
                    f["count"] = count

    def save_artifacts(self, n: int, kind: str, texts: dict | None, entry: dict) -> str:
        """Writes the texts of the documents at a finding (by default what the session
        holds now; for an answer, the text it was asked about) and the finding itself,
        for --check and --shrink."""
        where = Path(self.args.artifacts) / f"{n:02d}-{kind}"
        where.mkdir(parents=True, exist_ok=True)
        if texts is None:
            texts = {d.rel: d.text for d in self.docs.values()}
        for rel, text in texts.items():
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", rel)
            with open(where / name, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
                f.write(text)
        with open(where / "finding.json", "w", encoding="utf-8") as f:
            json.dump({**entry, "settings": self.settings}, f, indent=1, ensure_ascii=True)
        return str(where)

    def process(self):
        """Handles the responses and pushed messages the reader thread queued."""
        while self.done:
            kind, item = self.done.popleft()
            if kind == "response":
                self.check_response(*item)
            elif kind == "publish":
                self.check_publish(item)
            elif kind == "orphan_error":
                e = item.get("error") or {}
                self.normal_errors[f"{e.get('code')} (no id)"] += 1

    def check_response(self, p: Pending, msg: dict, at: float):
        latency = at - p.sent
        self.answered += 1
        if self.replaying:
            # A replayed checkpoint looks its answers up here.
            self.answers[p.id] = msg
            while len(self.answers) > 500:
                self.answers.popitem(last=False)
        self.latencies[p.method].append(latency)
        if p.wedged:
            self.log(f"late answer to wedged {p.method} #{p.id} after {latency:.1f} s")
        if latency > self.args.slow:
            self.slow.append({"method": p.method, "id": p.id, "latency": round(latency, 3),
                              "doc_chars": len(p.text) if p.text else None, "step": p.step,
                              "doc": self.rel_of(p.uri)})
        if "error" in msg:
            e = msg["error"] or {}
            code = e.get("code")
            message = str(e.get("message"))
            if code in NORMAL_ERRORS or (p.label == "expect-error" and code in (-32601, -32602)):
                self.normal_errors[f"{code} {p.method}"] += 1
                return
            sig = re.sub(r"\d+", "N", message)[:160]
            self.errors[f"{code} {p.method}: {sig}"] += 1
            kind = "panic" if code == INTERNAL_ERROR else "error"
            self.finding(kind, f"{p.method}: {sig}", texts=self.texts_at(p), code=code,
                         message=message[:2000],
                         panicked_at=self.server.panic_lines[-4:] if self.server else [],
                         request=short(p.params, 600), doc=self.rel_of(p.uri),
                         doc_chars=len(p.text) if p.text else None,
                         text_head=short(p.text or "", 600),
                         stderr_tail=list(self.server.stderr_tail)[-20:] if self.server else [])
            return
        result = msg.get("result")
        if p.text is None:
            return
        for where, problem in self.out_of_range(p.method, result, p.text, p.uri):
            # Against the latest text too: an answer computed from a newer text is
            # wrong as well, but worth telling apart.
            d = self.docs.get(p.uri)
            latest = "also" if d and any(
                w == where for w, _ in self.out_of_range(p.method, result, d.text, p.uri)) else "not"
            self.finding("out_of_range", f"{p.method} {where.split('[')[0]}",
                         texts=self.texts_at(p), problem=problem, where=where, request=short(p.params, 600),
                         doc=self.rel_of(p.uri), version=p.version,
                         doc_chars=len(p.text), latest_text=f"{latest} out of range in the latest text",
                         text_head=short(p.text, 600))

    def texts_at(self, p: Pending) -> dict:
        texts = {d.rel: d.text for d in self.docs.values()}
        if p.uri in self.docs and p.text is not None:
            texts[self.docs[p.uri].rel] = p.text
        return texts

    def out_of_range(self, method: str, result, text: str, uri: str | None = None):
        """Where `result` (the answer to `method` about `text`, the document `uri`) puts
        a position outside the text."""
        out = []
        if result is None:
            return out
        if method == "textDocument/inlayHint":
            for k, h in enumerate(result or []):
                p = position_problem(text, h.get("position"))
                if p:
                    out.append((f"hint[{k}].position", p))
                for j, e in enumerate(h.get("textEdits") or []):
                    p = range_problem(text, e.get("range"))
                    if p:
                        out.append((f"hint[{k}].textEdits[{j}]", p))
        elif method == "textDocument/codeLens":
            for k, lens in enumerate(result or []):
                p = range_problem(text, lens.get("range"))
                if p:
                    out.append((f"lens[{k}].range", p))
        elif method == "textDocument/diagnostic":
            for k, dg in enumerate(result.get("items") or []):
                p = range_problem(text, dg.get("range"))
                if p:
                    out.append((f"diagnostic[{k}].range", p))
        elif method == "textDocument/hover":
            if result.get("range") is not None:
                p = range_problem(text, result["range"])
                if p:
                    out.append(("hover.range", p))
        elif method == "textDocument/codeAction":
            for k, a in enumerate(result or []):
                edit = a.get("edit") or {}
                for target, edits in (edit.get("changes") or {}).items():
                    # An edit of another open document is checked against its latest text.
                    d = self.docs.get(target)
                    if target == uri or uri is None:
                        against = text
                    elif d is not None:
                        against = d.text
                    else:
                        continue
                    for j, e in enumerate(edits):
                        p = range_problem(against, e.get("range"))
                        if p:
                            out.append((f"action[{k}].changes[{j}]", p))
                for j, dc in enumerate(edit.get("documentChanges") or []):
                    for i, e in enumerate(dc.get("edits") or []):
                        p = range_problem(text, e.get("range"))
                        if p:
                            out.append((f"action[{k}].documentChanges[{j}][{i}]", p))
        return out

    def check_publish(self, msg: dict):
        params = msg.get("params") or {}
        d = self.docs.get(params.get("uri"))
        version = params.get("version")
        if d is None or version is None:
            return
        text = d.history.get(version)
        if text is None:
            return
        for k, dg in enumerate(params.get("diagnostics") or []):
            p = range_problem(text, dg.get("range"))
            if p:
                self.finding("out_of_range", "publishDiagnostics range", problem=p,
                             where=f"diagnostic[{k}]", doc=d.rel, version=version,
                             text_head=short(text, 600))

    def rel_of(self, uri):
        d = self.docs.get(uri) if uri else None
        return d.rel if d else uri

    def check_slow(self):
        """Marks requests unanswered past the thresholds; returns whether the server
        looks wedged for good."""
        now = time.monotonic()
        with self.lock:
            items = list(self.pending.values())
        for p in items:
            if p.gen != self.gen:
                continue
            age = now - p.sent
            if age > self.args.slow and not p.slow:
                p.slow = True
                self.capture_stacks(p, age)
            if age > self.args.wedge and not p.wedged:
                p.wedged = True
                self.wedged_in_gen += 1
                self.finding("wedge", f"{p.method} unanswered for {self.args.wedge:.0f} s",
                             request=short(p.params, 600), doc=self.rel_of(p.uri),
                             doc_chars=len(p.text) if p.text else None,
                             last_sent=list(self.recent_sent),
                             stderr_tail=list(self.server.stderr_tail)[-20:] if self.server else [],
                             text_head=short(p.text or "", 800),
                             threads=self.thread_states())
        if self.server is None:
            return False
        silent = now - self.server.last_rx
        return self.wedged_in_gen >= self.args.restart_after_wedges or (
            self.wedged_in_gen > 0 and silent > 2 * self.args.wedge)

    def capture_stacks(self, p: Pending, age: float):
        """With `--stacks DIR`: writes what the server's threads are doing while a
        request is slow (their /proc states and a gdb backtrace of each), at most one
        capture every 10 s."""
        if not self.args.stacks or self.server is None:
            return
        now = time.monotonic()
        if now - self.last_capture < 10.0:
            return
        self.last_capture = now
        os.makedirs(self.args.stacks, exist_ok=True)
        path = os.path.join(self.args.stacks, f"step{p.step}-{p.method.replace('/', '_')}.txt")
        lines = [f"{p.method} #{p.id} unanswered for {age:.1f} s at step {p.step}", ""]
        lines += self.thread_states()
        lines += ["", "stderr tail:"] + list(self.server.stderr_tail)[-20:]
        try:
            gdb = subprocess.run(["gdb", "-p", str(self.server.pid), "-batch", "-nx",
                                  "-ex", "thread apply all bt 40"],
                                 capture_output=True, text=True, timeout=60)
            lines += ["", gdb.stdout]
        except (OSError, subprocess.TimeoutExpired) as e:
            lines += ["", f"gdb: {e}"]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        self.log(f"slow {p.method} #{p.id}: threads written to {path}")

    def thread_states(self) -> list:
        """What the server's threads are doing (from /proc), for wedges."""
        if self.server is None:
            return []
        out = []
        base = f"/proc/{self.server.pid}/task"
        try:
            for tid in sorted(os.listdir(base))[:40]:
                try:
                    comm = open(f"{base}/{tid}/comm").read().strip()
                    stat = open(f"{base}/{tid}/stat").read().rsplit(")", 1)[1].split()[0]
                    try:
                        wchan = open(f"{base}/{tid}/wchan").read().strip()
                    except OSError:
                        wchan = "?"
                    out.append(f"{comm} {stat} {wchan}")
                except OSError:
                    pass
        except OSError:
            pass
        return out

    def outstanding(self) -> int:
        with self.lock:
            return sum(1 for p in self.pending.values() if p.gen == self.gen and not p.wedged)

    def wait_slot(self):
        """Waits until fewer than K requests are outstanding."""
        while True:
            self.process()
            if self.check_server():
                return
            if self.outstanding() < self.args.max_outstanding:
                return
            with self.lock:
                self.lock.wait(0.05)

    def check_server(self) -> bool:
        """Handles a dead or wedged server (restarting it in a fuzzing session); returns
        whether it was restarted or is gone."""
        srv = self.server
        if srv is None:
            return True
        if not srv.alive():
            self.on_crash()
            return True
        if self.check_slow():
            self.restart("wedged: restarted")
            return True
        return False

    def crash_signature(self, srv: Server) -> tuple[str, dict]:
        sig, detail = crash_signature(srv)
        detail["last_sent"] = list(self.recent_sent)
        detail["rss_kb_last"] = self.rss_samples[-1] if self.rss_samples else None
        return sig, detail

    def on_crash(self):
        srv = self.server
        sig, detail = self.crash_signature(srv)
        self.finding("crash", sig, **detail)
        with self.lock:
            for p in list(self.pending.values()):
                if p.gen == self.gen:
                    del self.pending[p.id]
        self.restart(f"crashed: {detail['status']}", kill=False)

    # -- the server's life ------------------------------------------------------

    def init_params(self) -> dict:
        return {
            "processId": None,  # recorded sessions must not name a dead process
            "clientInfo": {"name": "costline-lsp-fuzz", "version": "1"},
            "locale": "en",
            "rootUri": self.ws_uri,
            "rootPath": self.workspace,
            "workspaceFolders": [{"uri": self.ws_uri, "name": "fuzz"}],
            "initializationOptions": self.init_settings,
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "workspace": {
                    "configuration": True,
                    "workspaceFolders": True,
                    "didChangeConfiguration": {"dynamicRegistration": True},
                    "didChangeWatchedFiles": {"dynamicRegistration": True},
                    "inlayHint": {"refreshSupport": True},
                    "codeLens": {"refreshSupport": True},
                    "diagnostics": {"refreshSupport": True},
                },
                "textDocument": {
                    "synchronization": {"dynamicRegistration": False, "didSave": False},
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                    "inlayHint": {"dynamicRegistration": False},
                    "codeLens": {"dynamicRegistration": False},
                    "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["", "quickfix", "refactor"]}}},
                    "publishDiagnostics": {"versionSupport": True},
                },
                "window": {"workDoneProgress": True, "showMessage": {}},
            },
        }

    def spawn(self, label: str, settings) -> Server:
        srv = Server(self.args.binary, self.workspace, self.args.memory_limit, self.on_message, label)
        srv.settings = settings
        return srv

    def start_server(self, reason: str):
        self.gen += 1
        self.wedged_in_gen = 0
        self.note("start", reason=reason, server=self.gen)
        srv = self.spawn(f"session #{self.gen}", self.settings)
        srv.gen = self.gen
        self.server = srv
        if self.replaying:
            return
        rid = self.request("initialize", self.init_params())
        if not self.await_ids([rid], 60):
            self.finding("wedge", "initialize unanswered for 60 s",
                         stderr_tail=list(srv.stderr_tail)[-20:])
        self.notify("initialized", {})
        for d in self.docs.values():
            d.version += 1
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": d.uri, "languageId": "fortran", "version": d.version, "text": d.text}})

    def restart(self, reason: str, kill: bool = True):
        old = self.server
        if old is not None and old.proc.poll() is None:
            self.sample_rss()
        self.restarts.append({"reason": reason, "step": self.step, "edits": self.edits,
                              "t": round(time.monotonic() - self.t0, 2)})
        self.log(f"server #{self.gen} {reason}")
        if kill and old is not None:
            old.kill()
        if old is not None and old.proc.poll() is None:
            old.kill()
        with self.lock:
            for p in list(self.pending.values()):
                if p.gen == self.gen:
                    del self.pending[p.id]
        if len(self.restarts) > self.args.max_restarts:
            raise Abort(f"more than {self.args.max_restarts} server restarts")
        # The settings or the texts may be what took it down (a text that wedges or
        # crashes it would do so again at once): the new server starts from no settings
        # and the documents' original texts. This draws no random numbers, so the rest of
        # the session sends what the seed says.
        self.settings = {}
        self.note("settings", value={})
        for d in self.docs.values():
            d.text = d.original
        self.start_server(reason)

    def await_ids(self, ids, timeout: float) -> dict:
        """Waits for the responses to `ids` (processing them as usual); returns the
        responses that came, by id."""
        want = set(ids)
        got = {}
        end = time.monotonic() + timeout
        self.capture = got
        try:
            while want - set(got) and time.monotonic() < end:
                self.process_capturing(want, got)
                if not self.server.alive():
                    break
                self.check_slow()
                with self.lock:
                    if want - set(got) and not self.done:
                        self.lock.wait(0.05)
            self.process_capturing(want, got)
        finally:
            self.capture = None
        return got

    def process_capturing(self, want, got):
        while self.done:
            kind, item = self.done.popleft()
            if kind == "response":
                p, msg, at = item
                if p.id in want:
                    got[p.id] = msg
                self.check_response(p, msg, at)
            elif kind == "publish":
                self.check_publish(item)

    def wait_quiet(self, quiet: float, limit: float):
        """Until nothing is outstanding and the server said nothing for `quiet` s (and
        its progress ended), at most `limit` s."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            self.process()
            if self.replaying:
                if not self.server.alive():
                    return
                self.check_slow()
            else:
                self.check_server()
            srv = self.server
            idle = time.monotonic() - srv.last_rx
            if self.outstanding() == 0 and idle >= quiet and not srv.progress_active:
                return
            time.sleep(0.05)

    # -- the session's actions --------------------------------------------------

    def pick_doc(self) -> Doc:
        return self.docs[self.rng.choice(sorted(self.docs))]

    def edit(self):
        r = self.rng
        d = self.pick_doc()
        changes = []
        text = d.text
        n = 1 if r.random() < 0.85 else r.randint(2, 4)
        kinds = []
        for _ in range(n):
            if len(text) > self.args.max_doc_chars:
                # Too long: cut a large part (keeps the session's memory bounded).
                a = r.randrange(len(text) // 2)
                b = a + len(text) // 2
                rng_ = {"start": position_of(text, a), "end": position_of(text, b)}
                change = {"range": rng_, "text": ""}
                kinds.append("cut")
            elif r.random() < 0.02:
                kinds.append("full")
                change = {"text": self.make.snippet() * r.randint(1, 5) if r.random() < 0.5
                          else d.original}
            else:
                what = r.random()
                rng_ = self.make.range_in(text)
                if what < 0.2:
                    change = {"range": rng_, "text": ""}
                    kinds.append("delete")
                else:
                    kind, ins = self.make.text()
                    if r.random() < 0.5:
                        rng_ = {"start": rng_["start"], "end": dict(rng_["start"])}
                    change = {"range": rng_, "text": ins}
                    kinds.append(kind)
                if r.random() < 0.02:
                    # A column past the end of the line: clamped to its end.
                    change["range"]["end"] = dict(change["range"]["end"])
                    change["range"]["end"]["character"] += r.randint(1, 50)
                if r.random() < 0.3:
                    change["rangeLength"] = r.randint(0, 10)  # deprecated, ignored
            text = apply_change(text, change)
            changes.append(change)
        for k in kinds:
            self.kinds_sent["edit:" + k] += 1
        self.edits += 1
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": d.uri, "version": d.version + 1}, "contentChanges": changes},
            edit=True)
        if has_lone_surrogate(d.text):
            # Whatever the server made of the lone surrogate (U+FFFD, or the message
            # rejected), put both texts in step again.
            clean = without_surrogates(d.text)
            self.notify("textDocument/didChange", {
                "textDocument": {"uri": d.uri, "version": d.version + 1},
                "contentChanges": [{"text": clean}]})

    def random_request(self):
        r = self.rng
        d = self.pick_doc()
        td = {"uri": d.uri}
        which = r.choices(["inlayHint", "hover", "codeLens", "diagnostic", "codeAction", "invalid"],
                          [30, 20, 15, 15, 15, 1])[0]
        self.wait_slot()
        if which == "invalid":
            # Well-formed, but not a request the server can serve: an error answer.
            method, params = r.choice([
                ("textDocument/hover", {"textDocument": 5}),
                ("textDocument/inlayHint", {"textDocument": td}),
                ("costline/fuzz", {}),
                ("workspace/executeCommand", {"command": "costline.selectMachine", "arguments": [7]}),
                ("textDocument/codeLens", {"textDocument": {"uri": "file:///nonexistent/x.f90"}}),
            ])
            self.request(method, params, label="expect-error")
            return
        if which == "inlayHint":
            rng_ = whole_range(d.text) if r.random() < 0.8 else self.make.range_in(d.text, spill=True)
            self.request("textDocument/inlayHint", {"textDocument": td, "range": rng_})
        elif which == "hover":
            self.request("textDocument/hover", {"textDocument": td,
                                                "position": self.make.position(d.text, spill=True)})
        elif which == "codeLens":
            self.request("textDocument/codeLens", {"textDocument": td})
        elif which == "diagnostic":
            params = {"textDocument": td, "identifier": "costline"}
            if r.random() < 0.3:
                params["previousResultId"] = r.choice(["0", "x", "-1", "18446744073709551615"])
            self.request("textDocument/diagnostic", params)
        else:
            rng_ = self.make.range_in(d.text, spill=True)
            self.request("textDocument/codeAction", {
                "textDocument": td, "range": rng_,
                "context": {"diagnostics": [], **({"only": ["quickfix"]} if r.random() < 0.3 else {})}})

    def cancel(self):
        # A recent request, answered or not (the choice must not depend on timing).
        back = self.rng.randint(1, 4)
        rid = max(1, self.next_id - back)
        self.notify("$/cancelRequest", {"id": rid})

    def change_settings(self):
        r = self.rng
        if r.random() < 0.5:
            s = r.choice(GOOD_SETTINGS)
        else:
            s = r.choice(bad_settings(self.workspace, not self.args.no_hazards))
        self.set_settings(s)

    def set_settings(self, s):
        self.settings = s
        self.note("settings", value=self.portable_value(s))
        if self.server is not None:
            self.server.settings = s
        self.notify("workspace/didChangeConfiguration", {"settings": {"costline": s}})

    def portable_value(self, v):
        return json.loads(self.portable(json.dumps(v)))

    def malformed(self):
        r = self.rng
        kinds = [
            b'{"jsonrpc":"2.0","id":999999,"method":"textDocument/hover","params":',
            b'{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":5}}',
            b"[1, 2, 3]",
            b"null",
            b'"just a string"',
            b'{"jsonrpc":"2.0","id":{"nested":true},"method":"textDocument/codeLens","params":{}}',
            b"\xff\xfe\x00garbage",
            b'{"jsonrpc":"2.0","id":1e400,"method":"shutdown"}',
        ]
        which = r.randrange(len(kinds) + 4)
        if which < len(kinds):
            raw = frame(kinds[which])
        elif which == len(kinds):
            raw = b"Content-Length: abc\r\n\r\n{}"
        elif which == len(kinds) + 1:
            raw = b"Content-Type: application/json\r\n\r\n{}"
        elif which == len(kinds) + 2:
            raw = b"Content-Length: -5\r\n\r\n"
        else:
            raw = b"Content-Length: 99999999999999999999999\r\n\r\n{}"
        self.malformed_sent += 1
        self.note("raw", b64=base64.b64encode(raw).decode())
        self.recent_sent.append(short(raw.decode("latin-1"), 200))
        if self.server is not None:
            self.server.write(raw)

    def reopen(self):
        d = self.pick_doc()
        self.notify("textDocument/didClose", {"textDocument": {"uri": d.uri}})
        d.version += 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": d.uri, "languageId": "fortran", "version": d.version, "text": d.text}})

    # -- checkpoints: drift -----------------------------------------------------

    def labels(self, lens_result, hint_result) -> dict:
        lenses = sorted(
            (l["range"]["start"]["line"], l["range"]["start"]["character"],
             (l.get("command") or {}).get("title", ""))
            for l in (lens_result or []))
        hints = []
        for h in hint_result or []:
            label = h.get("label")
            if isinstance(label, list):
                label = "".join(part.get("value", "") for part in label)
            hints.append((h["position"]["line"], h["position"]["character"], label))
        return {"lenses": lenses, "hints": sorted(hints)}

    def ask_labels(self, uris, attempts=4):
        """codeLens + inlayHint of each document on the current server: (labels, ids,
        whether every question was answered)."""
        out = {}
        ids = {}
        for uri in uris:
            for attempt in range(attempts):
                d = self.docs[uri]
                a = self.request("textDocument/codeLens", {"textDocument": {"uri": uri}},
                                 label="checkpoint")
                b = self.request("textDocument/inlayHint", {"textDocument": {"uri": uri},
                                                            "range": whole_range(d.text)},
                                 label="checkpoint")
                ids[uri] = [a, b]
                got = self.await_ids([a, b], self.args.wedge + 1)
                if len(got) < 2:
                    return out, ids, False
                if all("result" in m for m in got.values()):
                    out[uri] = self.labels(got[a]["result"], got[b]["result"])
                    break
                out[uri] = {"error": {str(k): m.get("error") for k, m in got.items()}}
                time.sleep(0.3)
        return out, ids, True

    def fresh_labels(self, uris, texts, settings) -> dict:
        """The same questions to a fresh server on the same workspace and settings."""
        box = {"pending": {}, "got": {}}
        cv = threading.Condition()

        def on_message(srv, msg):
            if "method" in msg and "id" in msg:
                result = None
                if msg["method"] == "workspace/configuration":
                    items = (msg.get("params") or {}).get("items") or []
                    result = [settings if (it or {}).get("section") == "costline"
                              else {"costline": settings} for it in items]
                srv.write(frame(encode_body({"jsonrpc": "2.0", "id": msg["id"],
                                             "result": result}).encode("utf-8", "surrogatepass")))
            elif "id" in msg:
                with cv:
                    box["got"][msg["id"]] = msg
                    cv.notify_all()

        srv = Server(self.args.binary, self.workspace, self.args.memory_limit, on_message, "fresh")

        def send(m):
            srv.write(frame(encode_body(m).encode("utf-8", "surrogatepass")))

        def ask(rid, method, params, timeout):
            send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            end = time.monotonic() + timeout
            with cv:
                while rid not in box["got"] and time.monotonic() < end and srv.alive():
                    cv.wait(0.1)
            return box["got"].get(rid)

        out = {}
        try:
            if ask(1, "initialize", self.init_params(), 60) is None:
                return {"error": "the fresh server did not answer initialize",
                        "stderr": list(srv.stderr_tail)[-20:]}
            send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            for uri in uris:
                send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                    "textDocument": {"uri": uri, "languageId": "fortran", "version": 1,
                                     "text": texts[uri]}}})
            # Quiet: its workspace analysis ended and it said nothing for a while.
            begun = time.monotonic()
            end = begun + 120
            time.sleep(0.5)
            while time.monotonic() < end and srv.alive():
                analyzed = srv.progress_ended > 0 or time.monotonic() - begun > 10
                if (not srv.progress_active and analyzed
                        and time.monotonic() - srv.last_rx > self.args.quiet):
                    break
                time.sleep(0.05)
            rid = 10
            for uri in uris:
                for attempt in range(4):
                    a = ask(rid, "textDocument/codeLens", {"textDocument": {"uri": uri}}, self.args.wedge)
                    b = ask(rid + 1, "textDocument/inlayHint", {"textDocument": {"uri": uri},
                                                                "range": whole_range(texts[uri])},
                            self.args.wedge)
                    rid += 2
                    if a and b and "result" in a and "result" in b:
                        out[uri] = self.labels(a["result"], b["result"])
                        break
                    out[uri] = {"error": [a and a.get("error"), b and b.get("error")]}
            ask(rid, "shutdown", None, 10)
            send({"jsonrpc": "2.0", "method": "exit"})
            try:
                srv.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        finally:
            srv.kill()
        return out

    def checkpoint(self, replay_marker: dict | None = None):
        """Restores the documents, asks for labels, compares with a fresh server."""
        n = len(self.checkpoints) + 1
        if replay_marker is None:
            self.log(f"checkpoint {n} after {self.edits} edits: restoring the documents")
            settings = self.rng.choice(GOOD_SETTINGS)
            for attempt in range(3):
                gen = self.gen
                self.set_settings(settings)
                for d in self.docs.values():
                    if d.text != d.original:
                        self.notify("textDocument/didChange", {
                            "textDocument": {"uri": d.uri, "version": d.version + 1},
                            "contentChanges": [{"text": d.original}]})
                self.wait_quiet(self.args.quiet, 120)
                # A restart meanwhile (a crash or wedge) starts from no settings.
                if gen == self.gen:
                    break
            # The server at rest: its fresh start after a second without a change, and
            # the warm-up after it, are done by then.
            time.sleep(self.args.rest)
            rss = self.server.rss_kb() if self.server else None
            uris = sorted(self.docs)
            session, ids, answered = self.ask_labels(uris)
            if not self.server.alive():
                self.log(f"checkpoint {n}: the server died; no drift check")
                return
            if not answered:
                self.log(f"checkpoint {n}: the server does not answer; no drift check")
                self.restart("wedged at a checkpoint: restarted")
                return
            self.note("checkpoint", ids={self.portable(u): v for u, v in ids.items()},
                      rss_kb=rss, edits=self.edits)
        else:
            settings = self.settings
            rss = self.server.rss_kb() if self.server and self.server.alive() else None
            uris = sorted(self.docs)
            want = [i for v in replay_marker["ids"].values() for i in v]
            self.process()
            got = {i: self.answers[i] for i in want if i in self.answers}
            got.update(self.await_ids([i for i in want if i not in got], self.args.wedge + 1))
            if not self.server.alive():
                self.log(f"checkpoint {n}: the server died; no drift check")
                return
            session = {}
            for uri, (a, b) in replay_marker["ids"].items():
                uri = self.local(uri)
                if a in got and b in got and "result" in got[a] and "result" in got[b]:
                    session[uri] = self.labels(got[a]["result"], got[b]["result"])
                else:
                    session[uri] = {"error": "no labels"}
        self.rss_at_checkpoints.append({"edits": self.edits, "rss_kb": rss, "server": self.gen})
        texts = {u: self.docs[u].original for u in uris}
        fresh = self.fresh_labels(uris, texts, settings)
        drift = []
        for uri in uris:
            a, b = session.get(uri), fresh.get(uri) if isinstance(fresh, dict) else None
            if a != b:
                drift.append(self.describe_drift(uri, a, b))
        entry = {"edits": self.edits, "rss_kb": rss, "settings": settings,
                 "documents": len(uris), "drift": len(drift),
                 "labels": sum(len(v.get("lenses", [])) + len(v.get("hints", []))
                               for v in session.values() if isinstance(v, dict))}
        self.checkpoints.append(entry)
        for dr in drift:
            self.finding("drift", f"{dr['doc']}: {dr['summary']}", **dr,
                         settings=settings, checkpoint=n)
        self.log(f"checkpoint {n}: {entry['labels']} labels, {len(drift)} documents drifted, "
                 f"RSS {rss} kB")

    def describe_drift(self, uri, a, b) -> dict:
        rel = self.rel_of(uri)
        if not isinstance(a, dict) or not isinstance(b, dict) or "error" in a or "error" in b:
            return {"doc": rel, "summary": "no labels on one side", "session": short(a, 800),
                    "fresh": short(b, 800)}
        diffs = {}
        for key in ("lenses", "hints"):
            sa, sb = collections.Counter(map(tuple, a[key])), collections.Counter(map(tuple, b[key]))
            only_a, only_b = sa - sb, sb - sa
            if only_a or only_b:
                diffs[key] = {"only_session": [list(x) for x in sorted(only_a)][:10],
                              "only_fresh": [list(x) for x in sorted(only_b)][:10]}
        return {"doc": rel, "summary": " and ".join(sorted(diffs)) + " differ", "diff": diffs}

    # -- the whole session ------------------------------------------------------

    replaying = False

    def open_docs(self):
        names = sorted(self.fixtures)
        k = min(self.args.docs, len(names))
        chosen = sorted(self.rng.sample(names, k))
        for rel in chosen:
            uri = self.ws_uri + "/" + rel
            self.docs[uri] = Doc(uri, rel, self.fixtures[rel])
        if self.args.untitled:
            rel = self.rng.choice(names)
            uri = "untitled:Untitled-1"
            self.docs[uri] = Doc(uri, "untitled:" + rel, self.fixtures[rel])
        for d in self.docs.values():
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": d.uri, "languageId": "fortran", "version": d.version, "text": d.text}})

    def time_left(self) -> bool:
        return self.deadline is None or time.monotonic() < self.deadline

    def sample_rss(self):
        rss = self.server.rss_kb() if self.server else None
        peak = self.server.rss_kb("VmHWM") if self.server else None
        if peak is not None:
            self.peak_rss = max(self.peak_rss or 0, peak)
            if peak > self.args.rss_warn << 10:
                self.finding("memory", f"peak RSS above {self.args.rss_warn} MB",
                             peak_kb=peak, rss_kb=rss, last_sent=list(self.recent_sent))
        # [edits, kB, server]: a restarted server starts its memory afresh.
        self.rss_samples.append([self.edits, rss, self.gen])

    def run(self) -> int:
        self.make_workspace()
        self.make = Generator(self.rng, self.fixtures, self.workspace, not self.args.no_hazards,
                              [k for k in self.args.skip.split(",") if k])
        # No compiler in the background: its reports arrive when they arrive, and a
        # fresh server's answers (the drift checkpoints) would differ until then.
        self.init_settings = {"askCompiler": False}
        self.note("header", seed=self.seed, argv=sys.argv[1:], version=1,
                  fixtures=sorted(self.fixtures))
        try:
            self.start_server("start")
            self.open_docs()
            self.log(f"server pid {self.server.pid}; {len(self.docs)} documents open; "
                     f"workspace {self.workspace}")
            self.wait_quiet(self.args.quiet, 60)
            self.sample_rss()
            r = self.rng
            while self.edits < self.args.edits and self.time_left():
                self.step += 1
                self.check_server()
                self.edit()
                for _ in range(r.choice([0, 0, 1, 1, 1, 2, 3])):
                    self.random_request()
                roll = r.random()
                if roll < 0.06:
                    self.cancel()
                elif roll < 0.075:
                    self.change_settings()
                elif roll < 0.08:
                    self.reopen()
                elif roll < 0.13:
                    self.process()
                    time.sleep(r.choice([0.05, 0.1, 0.3, 0.6]))
                if self.args.malformed and r.random() < 0.01:
                    self.malformed()
                self.process()
                self.check_server()
                if self.edits % 100 == 0:
                    self.sample_rss()
                    if self.edits % 500 == 0:
                        self.log(f"{self.edits} edits, {self.requests_sent} requests, "
                                 f"{len(self.findings)} findings, RSS {self.rss_samples[-1][1]} kB")
                if self.args.checkpoint and self.edits % self.args.checkpoint == 0:
                    self.checkpoint()
            if not self.checkpoints or self.checkpoints[-1]["edits"] != self.edits:
                if self.args.checkpoint:
                    self.checkpoint()
            self.sample_rss()
            self.finish()
        except Abort as e:
            self.log(f"session aborted: {e}")
            self.aborted = str(e)
        except Exception as e:  # a bug of the fuzzer: still report what was found
            import traceback
            traceback.print_exc()
            self.aborted = f"fuzzer error: {e!r}"
        finally:
            if self.server is not None and self.server.proc.poll() is None:
                self.server.kill()
            if self.record:
                self.record.close()
        return self.report()

    aborted = None
    peak_rss = None

    def finish(self):
        """shutdown and exit: the process must end within 2 s with exit code 0."""
        # Long enough for a request still outstanding to count as wedged.
        self.wait_quiet(self.args.quiet, max(30, self.args.wedge + 2))
        srv = self.server
        if not srv.alive():
            self.on_crash()
            srv = self.server
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": "shutdown"}, final=True)
        got = self.await_ids([rid], 10)
        if rid not in got:
            self.finding("exit", "shutdown unanswered for 10 s",
                         stderr_tail=list(srv.stderr_tail)[-20:])
        self.send({"jsonrpc": "2.0", "method": "exit"}, final=True)
        t = time.monotonic()
        try:
            rc = srv.proc.wait(timeout=2)
            took = time.monotonic() - t
            self.shutdown_ok = rc == 0
            self.exit_info = {"status": srv.exit_status(), "seconds": round(took, 3)}
            if rc != 0:
                self.finding("exit", f"exit ended with {srv.exit_status()}",
                             stderr_tail=list(srv.stderr_tail)[-20:])
        except subprocess.TimeoutExpired:
            self.shutdown_ok = False
            self.exit_info = {"status": "still running 2 s after exit"}
            self.finding("exit", "the process still runs 2 s after exit",
                         threads=self.thread_states())
            srv.kill()

    exit_info = None

    # -- replay -----------------------------------------------------------------

    def replay(self, path: str) -> int:
        records = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        self.replaying = True
        self.make_workspace()
        # No compiler in the background: its reports arrive when they arrive, and a
        # fresh server's answers (the drift checkpoints) would differ until then.
        self.init_settings = {"askCompiler": False}
        speed = self.args.speed
        header = records[0] if records and records[0].get("kind") == "header" else {}
        self.log(f"replaying {len(records)} records (seed {header.get('seed')}) "
                 f"in {self.workspace}")
        # The documents the session holds come from its didOpen messages.
        try:
            start = time.monotonic()
            for rec in records:
                kind = rec.get("kind")
                t = rec.get("t", 0) / speed if speed > 0 else 0
                while time.monotonic() - start < t:
                    self.process()
                    if self.server is not None and self.server.alive():
                        self.check_slow()
                    time.sleep(min(0.02, max(0, t - (time.monotonic() - start))))
                if kind == "start":
                    if self.server is not None:
                        if self.server.alive():
                            self.log(f"the record restarts the server ({rec.get('reason')}); "
                                     "this one is still alive")
                        self.server.kill()
                    self.gen += 1
                    self.wedged_in_gen = 0
                    self.crash_noted = False
                    self.server = self.spawn(f"replay #{self.gen}", self.settings)
                    self.server.gen = self.gen
                    if self.gen > 1:
                        self.restarts.append({"reason": "record: " + str(rec.get("reason")),
                                              "t": round(time.monotonic() - self.t0, 2)})
                elif kind == "frame":
                    if rec.get("final"):
                        continue
                    body = self.local(rec["body"])
                    self.learn_docs(body)
                    if self.server is not None and not self.server.alive() and not self.crash_noted:
                        self.crash_noted = True
                        self.on_crash_replay()
                    self.send_body(body)
                    m = re.match(r'\{"jsonrpc":"2.0","id":(\d+)', body)
                    if m:
                        self.next_id = max(self.next_id, int(m.group(1)) + 1)
                        # The session waited for `initialize`'s answer before it sent
                        # anything else: a server drops the notifications (didOpen) that
                        # come before it is initialized, and a replay sent at the
                        # recorded times could outrun a server slower to start.
                        if '"method":"initialize"' in body:
                            self.await_ids([int(m.group(1))], 60)
                    if "edit" in rec:
                        self.edits = rec["edit"]
                        if self.edits % 100 == 0:
                            self.sample_rss()
                elif kind == "raw":
                    if self.server is not None:
                        self.server.write(base64.b64decode(rec["b64"]))
                elif kind == "settings":
                    v = json.loads(self.local(json.dumps(rec["value"])))
                    self.settings = v
                    if self.server is not None:
                        self.server.settings = v
                elif kind == "checkpoint" and not self.args.no_checkpoints:
                    self.checkpoint(replay_marker=rec)
            if self.server is not None and self.server.alive():
                self.sample_rss()
                self.finish()
            elif self.server is not None and not self.crash_noted:
                self.on_crash_replay()
        finally:
            if self.server is not None and self.server.proc.poll() is None:
                self.server.kill()
        return self.report()

    crash_noted = False

    def on_crash_replay(self):
        sig, detail = self.crash_signature(self.server)
        self.finding("crash", sig, **detail)

    def learn_docs(self, body: str):
        """In a replay, the documents come from the recorded didOpen messages."""
        if '"method":"textDocument/didOpen"' not in body:
            return
        try:
            td = json.loads(body)["params"]["textDocument"]
        except (ValueError, KeyError, TypeError):
            return
        if td["uri"] not in self.docs:
            rel = td["uri"][len(self.ws_uri) + 1:] if td["uri"].startswith(self.ws_uri) else td["uri"]
            self.docs[td["uri"]] = Doc(td["uri"], rel, self.fixtures.get(rel, td["text"]))

    # -- the report ---------------------------------------------------------------

    def report(self) -> int:
        self.process()
        lat = {}
        for method, values in sorted(self.latencies.items()):
            v = sorted(values)
            q = lambda f: round(v[min(len(v) - 1, int(f * len(v)))], 4)  # noqa: E731
            lat[method] = {"count": len(v), "p50": q(0.5), "p90": q(0.9), "p99": q(0.99),
                           "max": round(v[-1], 4)}

        def rss_at(n):
            for e, kb, _ in self.rss_samples:
                if e >= n and kb is not None:
                    return kb
            return None

        kinds = collections.Counter(f["kind"] for f in self.findings)
        failing = {k: kinds.get(k, 0) for k in
                   ("crash", "wedge", "panic", "out_of_range", "drift", "exit")}
        if self.args.strict_latency and self.slow:
            failing["slow"] = len(self.slow)
        summary = {
            "seed": self.seed,
            "binary": self.args.binary,
            "replay": self.args.replay,
            "workspace": self.workspace,
            "edits": self.edits,
            "steps": self.step,
            "requests": self.requests_sent,
            "answered": self.answered,
            "seconds": round(time.monotonic() - self.t0, 1),
            "aborted": self.aborted,
            "findings": self.findings,
            "failing": failing,
            "slow_requests": len(self.slow),
            "slowest": sorted(self.slow, key=lambda s: -s["latency"])[:25],
            "latency": lat,
            "errors": dict(self.errors),
            "normal_errors": dict(self.normal_errors),
            "rss_kb": {"at_500": rss_at(500), "at_1000": rss_at(1000),
                       "final": self.rss_samples[-1][1] if self.rss_samples else None,
                       "peak": self.peak_rss,
                       "samples": self.rss_samples},
            "rss_at_checkpoints": self.rss_at_checkpoints,
            "checkpoints": self.checkpoints,
            "restarts": self.restarts,
            "server_messages": dict(self.messages_from_server),
            "sent": dict(self.kinds_sent),
            "malformed_sent": self.malformed_sent,
            "exit": self.exit_info,
        }
        if self.args.report:
            with open(self.args.report, "w", encoding="utf-8") as f:
                json.dump(summary, f, indent=1, ensure_ascii=True)
        self.print_summary(summary)
        if self.tmp and not self.args.keep_workspace:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return 1 if any(failing.values()) or self.aborted else 0

    def print_summary(self, s):
        out = sys.stdout
        print("=" * 78, file=out)
        print(f"costline LSP fuzz: seed {s['seed']}{' (replay of ' + s['replay'] + ')' if s['replay'] else ''}, "
              f"{s['edits']} edits, {s['requests']} requests ({s['answered']} answered), "
              f"{s['seconds']} s", file=out)
        if s["aborted"]:
            print(f"ABORTED: {s['aborted']}", file=out)
        print("latency (s):", file=out)
        for m, v in s["latency"].items():
            print(f"  {m:28} n={v['count']:<6} p50={v['p50']:<8} p90={v['p90']:<8} "
                  f"p99={v['p99']:<8} max={v['max']}", file=out)
        r = s["rss_kb"]
        print(f"RSS (kB): after 500 edits {r['at_500']}, after 1000 {r['at_1000']}, final {r['final']}, "
              f"peak {r['peak']}", file=out)
        if s["rss_at_checkpoints"]:
            print("RSS at checkpoints (documents restored): " + ", ".join(
                f"{c['edits']} edits: {c['rss_kb']} (server #{c['server']})"
                for c in s["rss_at_checkpoints"]), file=out)
        print(f"slow requests (> {self.args.slow} s): {s['slow_requests']}", file=out)
        for e in s["slowest"][:5]:
            print(f"  {e['latency']:8.2f} s {e['method']} on {e['doc']} ({e['doc_chars']} chars)",
                  file=out)
        if s["errors"]:
            print("error answers:", file=out)
            for k, v in sorted(s["errors"].items()):
                print(f"  {v:5} x {k}", file=out)
        if s["restarts"]:
            print(f"server restarts: {len(s['restarts'])}", file=out)
        print(f"exit: {s['exit']}", file=out)
        print(f"findings: {len(s['findings'])} distinct", file=out)
        for f in s["findings"]:
            print(f"  [{f['kind']}] {f['signature']} (first at edit {f['edits']}, "
                  f"{f.get('count', 1)}x)", file=out)
            for key in ("status", "problem", "message"):
                if f.get(key):
                    print(f"      {key}: {short(f[key], 200)}", file=out)
            for line in (f.get("stderr_tail") or [])[-3:]:
                print(f"      stderr: {short(line, 200)}", file=out)
        failing = {k: v for k, v in s["failing"].items() if v}
        print("RESULT: " + ("FAIL " + json.dumps(failing) if failing or s["aborted"] else "ok"),
              file=out)
        print("=" * 78, file=out)
        out.flush()


class Abort(Exception):
    pass


# ----------------------------------------------------------------------------------
# One document on a fresh server (--check), and shrinking it (--shrink).
# ----------------------------------------------------------------------------------


class Checker:
    """Opens one text on a fresh server and asks for hints, lenses, diagnostics, code
    actions and a hover; the symptom is a crash, a wedge, a panic, a position out of
    range, or nothing."""

    def __init__(self, args):
        self.args = args
        base = Session(args)
        base.make_workspace()
        self.workspace = base.workspace
        self.ws_uri = base.ws_uri
        self.tmp = base.tmp
        base.init_settings = {"askCompiler": False}
        self.init_params = base.init_params()
        self.out_of_range = base.out_of_range
        self.runs = 0

    def run(self, name: str, text: str, settings=None, timeout: float | None = None):
        self.runs += 1
        timeout = timeout or self.args.wedge
        uri = self.ws_uri + "/" + name
        got: dict = {}
        cv = threading.Condition()

        def on_message(srv, msg):
            if "method" in msg and "id" in msg:
                result = None
                if msg["method"] == "workspace/configuration":
                    items = (msg.get("params") or {}).get("items") or []
                    result = [settings or {} for _ in items]
                srv.write(frame(encode_body({"jsonrpc": "2.0", "id": msg["id"],
                                             "result": result}).encode("utf-8", "surrogatepass")))
            elif "id" in msg:
                if msg.get("id") is None and "error" in msg:
                    srv.orphan_errors.append(msg["error"])
                with cv:
                    got[msg["id"]] = msg
                    cv.notify_all()

        srv = Server(self.args.binary, self.workspace, self.args.memory_limit, on_message, "check")

        def send(m):
            srv.write(frame(encode_body(m).encode("utf-8", "surrogatepass")))

        def wait(ids, seconds):
            end = time.monotonic() + seconds
            with cv:
                while not all(i in got for i in ids) and time.monotonic() < end and srv.alive():
                    cv.wait(0.05)

        try:
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": self.init_params})
            wait([1], 30)
            if 1 not in got:
                if not srv.alive():
                    sig, detail = crash_signature(srv)
                    return ("crash", sig), detail
                return ("wedge", "initialize"), {}
            send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            if settings is not None:
                send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                      "params": {"settings": {"costline": settings}}})
            send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "fortran", "version": 1, "text": text}}})
            td = {"uri": uri}
            whole = whole_range(text)
            middle = position_of(text, len(text) // 2)
            asks = {
                2: ("textDocument/inlayHint", {"textDocument": td, "range": whole}),
                3: ("textDocument/codeLens", {"textDocument": td}),
                4: ("textDocument/diagnostic", {"textDocument": td}),
                5: ("textDocument/codeAction", {"textDocument": td, "range": whole,
                                                "context": {"diagnostics": []}}),
                6: ("textDocument/hover", {"textDocument": td, "position": middle}),
            }
            # The workspace's own analysis first (it may change what the answers hold).
            end = time.monotonic() + 60
            while time.monotonic() < end and srv.alive() and (
                    srv.progress_active or not srv.progress_ended):
                time.sleep(0.05)
                if not srv.progress_active and time.monotonic() > end - 59:
                    break  # no progress began within 1 s: no workspace analysis
            for round_ in range(4):
                for rid, (method, params) in asks.items():
                    if rid not in got:
                        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
                wait(list(asks), timeout)
                if not srv.alive():
                    sig, detail = crash_signature(srv)
                    return ("crash", sig), detail
                missing = [asks[i][0] for i in asks if i not in got]
                if missing:
                    return ("wedge", "unanswered"), {"unanswered": missing}
                # ContentModified and RequestCancelled: ask again under new ids.
                again = {rid: ask for rid, ask in asks.items()
                         if (got[rid].get("error") or {}).get("code") in NORMAL_ERRORS}
                if not again or round_ == 3:
                    break
                for rid, ask in again.items():
                    del asks[rid]
                    asks[rid + 10 * (round_ + 1)] = ask
                time.sleep(1)
            for rid, (method, _) in asks.items():
                e = got[rid].get("error")
                if e and e.get("code") == INTERNAL_ERROR:
                    msg = re.sub(r"\d+", "N", str(e.get("message")))[:160]
                    return ("panic", msg), {"method": method, "message": e.get("message"),
                                            "stderr": list(srv.stderr_tail)[-12:]}
            peak = srv.rss_kb("VmHWM") or 0
            if peak > self.args.rss_warn << 10:
                return ("memory", f"peak RSS above {self.args.rss_warn} MB"), {"peak_kb": peak}
            still = [asks[rid][0] for rid in asks
                     if (got[rid].get("error") or {}).get("code") in NORMAL_ERRORS]
            if still:
                return ("modified", "answers keep saying ContentModified"), {"methods": still}
            for rid, (method, _) in asks.items():
                result = got[rid].get("result")
                problems = self.out_of_range(method, result, text, uri) if result is not None else []
                if problems:
                    return ("out_of_range", method), {"problems": problems[:5]}
            return ("ok", ""), {}
        finally:
            send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
            send({"jsonrpc": "2.0", "method": "exit"})
            try:
                srv.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            srv.kill()


def ddmin(units: list, fails, budget) -> list:
    """A smaller list of `units` for which `fails` still holds (delta debugging,
    removing chunks; `budget()` says whether more tries are allowed)."""
    n = 2
    while len(units) >= 2 and budget():
        chunk = -(-len(units) // n)
        for i in range(0, len(units), chunk):
            cand = units[:i] + units[i + chunk:]
            if cand and budget() and fails(cand):
                units = cand
                n = max(n - 1, 2)
                break
        else:
            if n >= len(units):
                break
            n = min(len(units), n * 2)
    return units


def check_main(args) -> int:
    path = args.check or args.shrink
    text = open(path, encoding="utf-8", errors="surrogatepass", newline="").read()
    name = args.name or os.path.basename(path)
    settings = json.loads(args.settings) if args.settings else None
    checker = Checker(args)
    try:
        symptom, detail = checker.run(name, text, settings)
        print(f"{path}: {symptom[0]} {symptom[1]}".rstrip())
        for k, v in detail.items():
            if k != "stderr_tail":
                print(f"  {k}: {short(v, 600)}")
        for line in detail.get("stderr_tail", [])[-6:]:
            print(f"  stderr: {line}")
        if args.check:
            return 0 if symptom[0] == "ok" else 1
        if symptom[0] == "ok":
            print("nothing to shrink: no symptom")
            return 2

        def budget():
            return checker.runs < args.budget

        def fails(candidate: str) -> bool:
            got, _ = checker.run(name, candidate, settings)
            return got == symptom

        lines = ddmin(text.splitlines(keepends=True), lambda ls: fails("".join(ls)), budget)
        # Then the characters of each long line.
        k = 0
        while k < len(lines) and budget():
            if len(lines[k]) > 40:
                before = lines[:k]
                after = lines[k + 1:]
                chars = ddmin(list(lines[k]),
                              lambda cs: fails("".join(before) + "".join(cs) + "".join(after)),
                              budget)
                lines[k] = "".join(chars)
            k += 1
        small = "".join(lines)
        out = args.out or path + ".min"
        with open(out, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
            f.write(small)
        print(f"shrunk {len(text)} chars / {text.count(chr(10)) + 1} lines to {len(small)} chars / "
              f"{small.count(chr(10)) + 1} lines in {checker.runs} runs: {out}")
        return 1
    finally:
        if checker.tmp and not args.keep_workspace:
            shutil.rmtree(checker.tmp, ignore_errors=True)


def default_binary() -> str:
    for p in (REPO / "target" / "release" / "costline", REPO / "target" / "debug" / "costline"):
        if p.exists():
            return str(p)
    return "costline"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=default_binary(), help="the costline binary")
    ap.add_argument("--seed", type=int, default=None, help="the session's seed (random when absent)")
    ap.add_argument("--edits", type=int, default=5000, help="edits to send (default 5000)")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this many minutes")
    ap.add_argument("--workspace", help="workspace folder (default: a temp copy of tests/fixtures)")
    ap.add_argument("--keep-workspace", action="store_true", help="keep the temp workspace")
    ap.add_argument("--record", help="write every message sent to this file (JSON lines)")
    ap.add_argument("--replay", help="send the messages of a recorded session again")
    ap.add_argument("--speed", type=float, default=1.0,
                    help="replay speed factor (0: as fast as possible)")
    ap.add_argument("--report", help="write the JSON summary here")
    ap.add_argument("--docs", type=int, default=5, help="fixture documents to open (default 5)")
    ap.add_argument("--no-untitled", dest="untitled", action="store_false",
                    help="do not open an untitled: document")
    ap.add_argument("--max-outstanding", "-k", type=int, default=8,
                    help="requests in flight at most (default 8)")
    ap.add_argument("--slow", type=float, default=2.0, help="seconds before a request is slow")
    ap.add_argument("--wedge", type=float, default=30.0, help="seconds before a request is wedged")
    ap.add_argument("--restart-after-wedges", type=int, default=3,
                    help="restart the server after this many wedged requests (default 3)")
    ap.add_argument("--max-restarts", type=int, default=200,
                    help="give up after this many server restarts (default 200)")
    ap.add_argument("--checkpoint", type=int, default=500,
                    help="drift checkpoint every N edits (0: none; default 500)")
    ap.add_argument("--no-checkpoints", action="store_true", help="replay: skip the drift checks")
    ap.add_argument("--rest", type=float, default=2.0,
                    help="seconds a checkpoint waits after the server is quiet before it "
                    "reads its resident size (default 2)")
    ap.add_argument("--quiet", type=float, default=1.5,
                    help="seconds without a message that count as quiet (default 1.5)")
    ap.add_argument("--malformed", action="store_true", help="also send malformed frames")
    ap.add_argument("--no-hazards", action="store_true",
                    help="no INCLUDE of /dev/zero, /dev/stdin, the FIFO, and no such machine settings")
    ap.add_argument("--skip", default="",
                    help="comma-separated kinds of inserted text not to send: snippet, garbage, "
                         "long_line, unbalanced_do, chain, nested_parens, do_nest, directive, "
                         "include, cr_only, lone_surrogate, nul, newline, char")
    ap.add_argument("--max-doc-chars", type=int, default=600_000,
                    help="a document longer than this is cut (default 600000)")
    ap.add_argument("--memory-limit", type=int, default=4096,
                    help="address-space limit of the server in MiB (0: none; default 4096)")
    ap.add_argument("--artifacts", help="write the documents' texts at each new finding here")
    ap.add_argument("--check", metavar="FILE",
                    help="open FILE on a fresh server, ask for everything, report the symptom")
    ap.add_argument("--shrink", metavar="FILE",
                    help="shrink FILE to a smaller text with the same symptom (see --out)")
    ap.add_argument("--out", help="--shrink: where to write the smaller text")
    ap.add_argument("--name", help="--check/--shrink: the document's path in the workspace "
                                   "(default: FILE's name at the workspace root)")
    ap.add_argument("--settings", help="--check/--shrink: the costline settings (JSON)")
    ap.add_argument("--bare", action="store_true",
                    help="--check/--shrink: an empty workspace (only the FIFO), not the fixtures")
    ap.add_argument("--budget", type=int, default=400, help="--shrink: servers to start at most")
    ap.add_argument("--rss-warn", type=int, default=1024,
                    help="a server whose peak RSS passes this many MB is a memory finding "
                         "(reported, not failing; default 1024)")
    ap.add_argument("--stacks", metavar="DIR",
                    help="write the server's thread backtraces (gdb) here when a request is slow")
    ap.add_argument("--strict-latency", action="store_true", help="slow requests fail the run")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 10**9)
    if not (os.path.isfile(args.binary) or shutil.which(args.binary)):
        print(f"lsp_fuzz: no costline binary at {args.binary} (use --binary)", file=sys.stderr)
        return 2
    if args.check or args.shrink:
        return check_main(args)
    session = Session(args)
    if args.replay:
        return session.replay(args.replay)
    return session.run()


if __name__ == "__main__":
    sys.exit(main())
