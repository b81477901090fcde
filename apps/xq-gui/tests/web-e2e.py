#!/usr/bin/env python3
"""Two players and a spectator in headless Chromium against a relay that serves the web client.

    python3 apps/xq-gui/tests/web-e2e.py http://127.0.0.1:7880/

The relay must serve the bundle (`cargo xtask web`) at that URL and its WebSocket at `/ws` (as
`cargo xtask relay --listen ws://127.0.0.1:7880` does once the relay embeds the bundle). Each
player is a browser of its own (its own profile, so its own localStorage), driven over the
DevTools protocol; every step reads the canvas's data hooks and clicks where they say:

1. A opens `#create`; B opens the `#join/CODE` link A's page shows; both are seated.
2. Red plays h2e2 and Black h9g7 by clicking squares; both pages show both moves.
3. A spectator opens `#watch/CODE` and sees the game.
4. B reloads its page: its stored token takes the seat back.
5. A offers a draw, B accepts in the dialog; both read "Draw by agreement".
6. A saves the PGN: the browser downloads the record.

Needs only Python's standard library and Chromium (it speaks WebSocket itself). Exits non-zero
with a message on any failure; every wait is bounded.
"""

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

PATIENCE = 30  # seconds any one step may take


class WebSocket:
    """The least of a WebSocket client that the DevTools protocol needs: text frames."""

    def __init__(self, url):
        hostport, path = url.split("://", 1)[1].split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=PATIENCE)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
             "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"no WebSocket upgrade: {head!r}")

    def send(self, text):
        data = text.encode()
        n = len(data)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("the browser closed the DevTools connection")
            data += chunk
        return data

    def recv(self):
        message = b""
        while True:
            first, second = self._read(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            message += self._read(n)
            if first & 0x80:
                return message.decode()


class Browser:
    """A headless Chromium with a profile of its own, and its one page."""

    def __init__(self, name, port, downloads=None):
        self.name = name
        self.profile = tempfile.mkdtemp(prefix=f"xq-e2e-{name}-")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", f"--remote-debugging-port={port}",
             f"--user-data-dir={self.profile}", "--use-angle=swiftshader",
             "--enable-unsafe-swiftshader", "--window-size=1100,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + PATIENCE
        while True:
            try:
                targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json").read())
                pages = [t for t in targets if t["type"] == "page"]
                if pages:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError(f"{name}: Chromium did not start")
            time.sleep(0.1)
        self.socket = WebSocket(pages[0]["webSocketDebuggerUrl"])
        self.calls = 0
        if downloads:
            self.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=downloads)

    def close(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method, **params):
        self.calls += 1
        self.socket.send(json.dumps({"id": self.calls, "method": method, "params": params}))
        while True:
            answer = json.loads(self.socket.recv())
            if answer.get("id") == self.calls:
                if "error" in answer:
                    raise RuntimeError(f"{self.name}: {method}: {answer['error']}")
                return answer.get("result", {})

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression,
                         returnByValue=True)["result"].get("value")

    def hook(self, name):
        return self.evaluate(f"document.getElementById('xq')?.getAttribute('{name}') ?? ''")

    def wait(self, what, done):
        deadline = time.time() + PATIENCE
        while time.time() < deadline:
            if done():
                return
            time.sleep(0.1)
        hooks = {n: self.hook(f"data-{n}") for n in ["status", "seat", "code", "moves", "connected"]}
        raise AssertionError(f"{self.name}: {what}: {hooks}")

    def click(self, x, y):
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"]:
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)
            time.sleep(0.1)

    def click_square(self, square):
        """Clicks the point of `square` ("h2") where `data-board` says the board is."""
        min_x, min_y, spacing, bottom = self.hook("data-board").split()
        min_x, min_y, spacing = float(min_x), float(min_y), float(spacing)
        file, rank = "abcdefghi".index(square[0]), int(square[1])
        col, row = (file, 9 - rank) if bottom == "red" else (8 - file, rank)
        self.click(min_x + (0.8 + col) * spacing, min_y + (0.8 + row) * spacing)

    def controls(self):
        return json.loads(self.hook("data-controls") or "{}")

    def click_control(self, name):
        """Clicks the control `name` once `data-controls` shows it in the same place twice (a
        dialog's first frame only measures it, and it moves on the next)."""
        seen = []

        def settled():
            seen.append(self.controls().get(name))
            return len(seen) > 2 and seen[-1] is not None and seen[-1] == seen[-3]

        self.wait(f"a control named {name}, settled", settled)
        x, y, w, h = seen[-1]
        self.click(x + w / 2, y + h / 2)

    def click_until(self, name, what, done):
        """Clicks the control `name` until `done()`: a click that lands in a frame the page
        skips is lost, and the control is still there to click again."""
        deadline = time.time() + PATIENCE
        while time.time() < deadline:
            if name in self.controls():
                self.click_control(name)
            for _ in range(20):
                if done():
                    return
                time.sleep(0.1)
        raise AssertionError(f"{self.name}: {what}, clicking {name}")

    def play(self, move):
        self.click_square(move[:2])
        self.click_square(move[2:])


def main():
    base = sys.argv[1].rstrip("/") + "/" if len(sys.argv) > 1 else "http://127.0.0.1:7880/"
    downloads = tempfile.mkdtemp(prefix="xq-e2e-downloads-")
    browsers = []
    try:
        a = Browser("A", 9301, downloads)
        b = Browser("B", 9302)
        browsers += [a, b]
        a.call("Page.navigate", url=base + "#create")
        a.wait("a room created", lambda: a.hook("data-code") and a.hook("data-seat") in ("red", "black"))
        code = a.hook("data-code")
        assert a.evaluate("location.hash") == f"#join/{code}", a.evaluate("location.hash")
        print(f"A created room {code} and plays {a.hook('data-seat')}")

        b.call("Page.navigate", url=base + f"#join/{code}")
        b.wait("seated in the room", lambda: b.hook("data-seat") in ("red", "black"))
        assert {a.hook("data-seat"), b.hook("data-seat")} == {"red", "black"}
        for page in (a, b):
            page.wait("connected to the opponent", lambda: page.hook("data-connected") == "true"
                      and "opponent connected" in page.hook("data-status"))
        print(f"B joined and plays {b.hook('data-seat')}")

        red, black = (a, b) if a.hook("data-seat") == "red" else (b, a)
        moves = []
        for player, move in [(red, "h2e2"), (black, "h9g7")]:
            player.play(move)
            moves.append(move)
            for page in (a, b):
                page.wait(f"{' '.join(moves)} shown", lambda: page.hook("data-moves") == " ".join(moves))
        print(f"both pages show {a.hook('data-moves')}: {a.hook('data-status')}")

        c = Browser("C", 9303)
        browsers.append(c)
        c.call("Page.navigate", url=base + f"#watch/{code}")
        c.wait("watching the game", lambda: c.hook("data-seat") == "watching"
               and c.hook("data-moves") == " ".join(moves))
        print(f"C watches: {c.hook('data-status')}")

        seat = b.hook("data-seat")
        token = b.evaluate(f"localStorage.getItem('xq.token.{code}')")
        assert token and len(token) == 32, token
        # A mark on the old document tells it from the reloaded one, whose hooks alone count.
        b.evaluate("window.xqBeforeReload = true")
        b.call("Page.reload")
        b.wait("the page reloaded", lambda: b.evaluate("window.xqBeforeReload ?? false") is False)
        b.wait("the seat taken back after a reload", lambda: b.hook("data-seat") == seat
               and b.hook("data-connected") == "true" and b.hook("data-moves") == " ".join(moves))
        print(f"B reloaded and is back at {seat}")

        a.wait("the opponent back", lambda: "opponent connected" in a.hook("data-status"))
        a.click_until("Offer draw", "the draw offered",
                      lambda: "considering a draw offer" in a.hook("data-status"))
        b.click_until("Accept", "the draw agreed",
                      lambda: b.hook("data-status").startswith("Draw by agreement"))
        for page in (a, b, c):
            page.wait("the draw agreed", lambda: page.hook("data-status").startswith("Draw by agreement"))
        print(f"all three read: {a.hook('data-status')}")

        a.click_control("Save PGN")
        deadline = time.time() + PATIENCE
        while not os.path.exists(os.path.join(downloads, "game.pgn")):
            assert time.time() < deadline, f"no game.pgn in {os.listdir(downloads)}"
            time.sleep(0.1)
        time.sleep(0.5)
        record = open(os.path.join(downloads, "game.pgn"), encoding="utf-8").read()
        assert "1/2-1/2" in record, record
        print(f"A downloaded game.pgn ({len(record)} bytes)")
        print("web-e2e: ok")
    finally:
        for browser in browsers:
            browser.close()
        shutil.rmtree(downloads, ignore_errors=True)


if __name__ == "__main__":
    main()
