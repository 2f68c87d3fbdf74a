#!/usr/bin/env python3
"""Dumps what `BIN serve` answers for FILE..., one canonical JSON line per message.

Usage: tests/compat/lsp_dump.py [--settings JSON] BIN FILE...   (run from the repo root)

The workspace root is the current directory. After the startup (settings, watchers, the
workspace analysis, up to its `$/progress` end) every FILE is opened and asked, in order:
pull diagnostics, inlay hints over the whole file, code lenses, hover at the first
non-blank column of every non-blank line, code actions at every DISTRIBUTE directive and
at every diagnostic. Requests answered ContentModified are asked again. Printed: the
initialize result, the messages of the startup in arrival order, the responses in request
order, then the notifications that arrived after the startup (publishDiagnostics, ...)
in arrival order, then the server's exit code. Labels are METHOD PATH[:LINE:COLUMN],
1-based, columns in UTF-16 units. Not printed: ids, and the server's requests after the
startup (refreshes, whose number depends on timing).
"""

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time

TIMEOUT = 600  # seconds to wait for any one message
CONTENT_MODIFIED = -32801
DIRECTIVE = re.compile(r"^\s*[!*cC]hpf\$.*\bdistribute\b", re.IGNORECASE)


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Server:
    def __init__(self, argv, settings):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.settings = settings
        self.incoming = queue.Queue()
        self.backlog = []  # notifications not consumed yet, in arrival order
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.incoming.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            self.incoming.put(json.loads(out.read(length)))

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def next_message(self):
        """The next message from the server; its requests are answered (and returned)."""
        try:
            m = self.incoming.get(timeout=TIMEOUT)
        except queue.Empty:
            sys.exit(f"lsp_dump: nothing from the server within {TIMEOUT} s")
        if m is None:
            sys.exit(f"lsp_dump: the server closed its output (exit code {self.proc.wait()})")
        if "method" in m and "id" in m:
            result = None
            if m["method"] == "workspace/configuration":
                result = [self.settings] * len(m["params"].get("items", [None]))
            self.send({"id": m["id"], "result": result})
        return m

    def request(self, method, params):
        """The response (without its id) to a request, asked again on ContentModified."""
        for attempt in range(10):
            rid, self.next_id = self.next_id, self.next_id + 1
            self.send({"id": rid, "method": method, "params": params})
            while True:
                m = self.next_message()
                if m.get("id") == rid and "method" not in m:
                    break
                if "id" not in m:
                    self.backlog.append(m)
            if m.get("error", {}).get("code") != CONTENT_MODIFIED:
                break
            time.sleep(0.2 * (attempt + 1))
        m.pop("id", None)
        m.pop("jsonrpc", None)
        return m


def utf16(text):
    return len(text.encode("utf-16-le")) // 2


def main():
    args = sys.argv[1:]
    settings = None
    if args[:1] == ["--settings"]:
        settings, args = json.loads(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, files = args[0], args[1:]
    root = os.getcwd()
    out = sys.stdout

    def emit(label, value):
        out.write(canonical({"label": label, "message": value}) + "\n")

    server = Server([binary, "serve"], settings)
    capabilities = {
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": {
            "configuration": True,
            "didChangeConfiguration": {"dynamicRegistration": True},
            "didChangeWatchedFiles": {"dynamicRegistration": True},
            "inlayHint": {"refreshSupport": True},
            "codeLens": {"refreshSupport": True},
            "diagnostics": {"refreshSupport": True},
        },
        "textDocument": {
            "diagnostic": {"dynamicRegistration": False},
            "inlayHint": {},
            "hover": {"contentFormat": ["markdown"]},
            "codeLens": {},
            "codeAction": {},
            "publishDiagnostics": {"versionSupport": True},
        },
        "window": {"workDoneProgress": True},
    }
    root_uri = "file://" + root
    emit("initialize", server.request("initialize", {
        "processId": None,
        "rootUri": root_uri,
        "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
        "capabilities": capabilities,
    }))
    server.notify("initialized", {})
    # The startup, in arrival order, up to the end of the workspace analysis.
    while True:
        m = server.next_message()
        emit("startup", m)
        if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end":
            break

    for path in files:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        uri = "file://" + os.path.abspath(path)
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "fortran", "version": 1, "text": text}})

    for path in files:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", errors="replace").split("\n")
        doc = {"uri": "file://" + os.path.abspath(path)}

        def ask(label, method, params):
            response = server.request(method, dict(params, textDocument=doc))
            emit(f"{method} {path}{label}", response)
            return response

        diags = ask("", "textDocument/diagnostic", {})
        ask("", "textDocument/inlayHint", {"range": {
            "start": {"line": 0, "character": 0},
            "end": {"line": len(lines) + 1, "character": 0}}})
        ask("", "textDocument/codeLens", {})
        for n, line in enumerate(lines):
            stripped = line.lstrip(" \t")
            if stripped.strip():
                at = {"line": n, "character": utf16(line[: len(line) - len(stripped)])}
                ask(f":{n + 1}:{at['character'] + 1}", "textDocument/hover", {"position": at})
        for n, line in enumerate(lines):
            if DIRECTIVE.match(line):
                col = utf16(line[: line.lower().index("distribute")])
                at = {"line": n, "character": col}
                ask(f":{n + 1}:{col + 1}", "textDocument/codeAction",
                    {"range": {"start": at, "end": at}, "context": {"diagnostics": []}})
        for d in diags.get("result", {}).get("items", []):
            start = d["range"]["start"]
            ask(f":{start['line'] + 1}:{start['character'] + 1} {d.get('code')}",
                "textDocument/codeAction",
                {"range": d["range"], "context": {"diagnostics": [d]}})

    emit("shutdown", server.request("shutdown", None))
    server.notify("exit", None)
    server.proc.stdin.close()
    code = server.proc.wait(timeout=TIMEOUT)
    # Whatever else arrived (notifications only: requests were answered as they came).
    while True:
        m = server.incoming.get(timeout=TIMEOUT)
        if m is None:
            break
        if "id" not in m:
            server.backlog.append(m)
    for m in server.backlog:
        emit("notification", m)
    emit("exit code", code)


if __name__ == "__main__":
    main()
