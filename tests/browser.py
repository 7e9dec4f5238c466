"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (standard library only), for the
tests that open report.html in headless Chromium: load a page, run script, move the mouse, take a screenshot,
and collect console errors, uncaught exceptions and network requests."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium() -> str | None:
    """The Chromium executable, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (so placing the pipes at 3 and 4 cannot overwrite one of them)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, executable: str, profile: Path, width: int = 1280, height: int = 900,
                 timeout: float = 60.0) -> None:
        self.timeout = timeout
        to_chrome_r, self._write = (_high(fd) for fd in os.pipe())
        self._read, from_chrome_w = (_high(fd) for fd in os.pipe())

        def pipes_as_3_and_4() -> None:  # Chromium reads commands from fd 3 and writes answers to fd 4
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
                                      "about:blank"], pass_fds=(3, 4), preexec_fn=pipes_as_3_and_4,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._id = 0
        self.session: str | None = None
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.session = None
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass

    # -- protocol ---------------------------------------------------------------------------------------------

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._read], [], [], remaining)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed the pipe")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message = json.loads(raw)
        if "method" in message:
            self.events.append(message)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if self.session is not None:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._write, data):]
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def wait_event(self, name: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        seen = len(self.events)
        for event in self.events:
            if event["method"] == name:
                return event
        while True:
            self._message(deadline)
            for event in self.events[seen:]:
                if event["method"] == name:
                    return event
            seen = len(self.events)

    # -- actions ----------------------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def move_mouse(self, x: float, y: float) -> None:
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", "")[:500])
        return out

    def requests(self) -> list[str]:
        """URLs of every request the page made."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]


def png_colours(data: bytes) -> int:
    """The number of distinct byte values in a PNG's decoded scanlines (a blank image has a handful)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"IDAT":
            idat += data[position + 8:position + 8 + length]
        position += 12 + length
    return len(set(zlib.decompress(idat)))
