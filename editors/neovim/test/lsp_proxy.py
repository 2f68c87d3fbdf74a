#!/usr/bin/env python3
"""A stdio proxy between an LSP client and server that can make the server stop
publishing one surface, for the editor test's negative runs.

    lsp_proxy.py [--drop SURFACE] -- SERVER ARGS...

SURFACE is one of: diagnostics (pushed notifications and pull reports come out empty),
inlay_hints, code_lenses, hover, code_actions (their results come out empty). Everything
else passes through unchanged; with no --drop the proxy is transparent. The server's
stderr is the proxy's; the proxy exits with the server's exit code.
"""

import argparse
import json
import subprocess
import sys
import threading

# The requests whose results a surface's drop empties, and the empty result.
RESULTS = {
    "inlay_hints": {"textDocument/inlayHint": []},
    "code_lenses": {"textDocument/codeLens": []},
    "hover": {"textDocument/hover": None},
    "code_actions": {"textDocument/codeAction": []},
    "diagnostics": {"textDocument/diagnostic": {"kind": "full", "items": []}},
}
SURFACES = sorted(RESULTS)


def read_message(stream):
    """One framed message (headers and body) as (headers bytes, body bytes), or None at
    the end of the stream."""
    headers = b""
    while not headers.endswith(b"\r\n\r\n"):
        byte = stream.read(1)
        if not byte:
            return None
        headers += byte
    length = None
    for line in headers.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError(f"a message without Content-Length: {headers!r}")
    body = b""
    while len(body) < length:
        chunk = stream.read(length - len(body))
        if not chunk:
            return None
        body += chunk
    return headers, body


def write_message(stream, body):
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def main():
    parser = argparse.ArgumentParser(
        usage="lsp_proxy.py [--drop SURFACE] -- SERVER ARGS...",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--drop", choices=SURFACES)
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("no server command after --")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    server = argv[split + 1 :]

    child = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    emptied = RESULTS.get(args.drop, {})
    # Request id -> method, for the client's requests whose results are emptied.
    pending = {}
    lock = threading.Lock()

    def client_to_server():
        stdin = sys.stdin.buffer
        while True:
            message = read_message(stdin)
            if message is None:
                break
            headers, body = message
            if emptied:
                try:
                    m = json.loads(body)
                except ValueError:
                    m = None
                if isinstance(m, dict) and m.get("method") in emptied and "id" in m:
                    with lock:
                        pending[json.dumps(m["id"])] = m["method"]
            try:
                child.stdin.write(headers + body)
                child.stdin.flush()
            except BrokenPipeError:
                break
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass

    threading.Thread(target=client_to_server, daemon=True).start()

    stdout = sys.stdout.buffer
    while True:
        message = read_message(child.stdout)
        if message is None:
            break
        headers, body = message
        if emptied:
            m = json.loads(body)
            changed = False
            if args.drop == "diagnostics" and m.get("method") == "textDocument/publishDiagnostics":
                m["params"]["diagnostics"] = []
                changed = True
            elif "id" in m and "method" not in m:
                with lock:
                    method = pending.pop(json.dumps(m["id"]), None)
                if method is not None and "result" in m:
                    m["result"] = emptied[method]
                    changed = True
            if changed:
                write_message(stdout, json.dumps(m).encode())
                continue
        stdout.write(headers + body)
        stdout.flush()
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
