"""A headless Chromium that opens a page and reports on it, through the DevTools protocol over a pipe.

``inspect_page(path)`` loads a local HTML file at a given window width and returns what a reader
would meet: the size of every ``<svg>`` and ``<img>`` as laid out, the console messages and
uncaught exceptions, every request other than the page itself, whether anything is wider than
the window, and a PNG screenshot of the whole page. Chromium's ``--remote-debugging-pipe``
reads commands on file descriptor 3 and writes answers and events on 4, each a JSON text
ended by a NUL byte; no port is opened.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) binary, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class _Pipe:
    """Commands to Chromium and their answers; events are kept in ``events``."""

    def __init__(self, write_fd: int, read_fd: int, timeout: float) -> None:
        self.write_fd, self.read_fd, self.timeout = write_fd, read_fd, timeout
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        import select

        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        command = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self.write_fd, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float) -> dict:
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            self.events.append(message)
            if message.get("method") == method:
                return message


_MEASURE = """
(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {w: r.width, h: r.height, x: r.left}; };
  const svgs = [...document.querySelectorAll('svg')].filter((e) => !e.parentElement.closest('svg'));
  return JSON.stringify({
    svgs: svgs.map((e) => ({label: e.getAttribute('aria-label'), ...box(e)})),
    images: [...document.images].map((e) => ({src: e.src.slice(0, 60), w: e.naturalWidth, h: e.naturalHeight})),
    page: {w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight},
    tables: document.querySelectorAll('table').length,
    overflowing: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right
      > window.innerWidth + 1).map((e) => e.tagName + (e.id ? '#' + e.id : '')).slice(0, 20),
  });
})()
"""


def inspect_page(path: str | os.PathLike, *, width: int = 1280, height: int = 900, timeout: float = 60.0) -> dict:
    """Open ``path`` in headless Chromium ``width`` pixels wide and report on it.

    Returns a dict: ``svgs`` (aria-label, laid-out width and height, left edge of each
    top-level ``<svg>``), ``images``, ``page`` (the document's scroll size), ``tables``,
    ``overflowing`` (elements reaching past the window's right edge), ``console`` (messages of
    the console and the browser's log, level and text), ``exceptions``, ``requests`` (every URL
    asked for besides the page) and ``screenshot`` (PNG bytes of the whole page).
    """
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("no Chromium found")
    url = Path(path).resolve().as_uri()
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    profile = tempfile.mkdtemp(prefix="bnclf-chromium-")

    def plumbing() -> None:  # in the child: the pipe's ends become its descriptors 3 and 4
        reads, writes = os.dup(to_child_r), os.dup(from_child_w)  # neither is 3 nor 4 any more
        os.dup2(reads, 3)  # dup2 leaves the new descriptors open across exec
        os.dup2(writes, 4)

    args = [
        binary,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--hide-scrollbars",
        "--remote-debugging-pipe",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "about:blank",
    ]
    proc = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=plumbing,
        close_fds=False,  # Python's own descriptors are not inherited (PEP 446); 3 and 4 are
    )
    os.close(to_child_r)
    os.close(from_child_w)
    pipe = _Pipe(to_child_w, from_child_r, timeout)
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        pipe.events.clear()
        pipe.send("Page.navigate", {"url": url}, session=session)
        pipe.wait_for("Page.loadEventFired", timeout)
        report = json.loads(pipe.send("Runtime.evaluate", {"expression": _MEASURE}, session=session)["result"]["value"])
        page_w, page_h = report["page"]["w"], report["page"]["h"]
        shot = pipe.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": max(width, page_w), "height": page_h, "scale": 1},
            },
            session=session,
        )
        pipe.send("Runtime.evaluate", {"expression": "1"}, session=session)  # flush late events
        console, exceptions, requests = [], [], []
        for event in pipe.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                console.append((params.get("type"), text))
            elif method == "Log.entryAdded":
                entry = params["entry"]
                console.append((entry.get("level"), entry.get("text")))
            elif method == "Runtime.exceptionThrown":
                exceptions.append(params["exceptionDetails"].get("text"))
            elif method == "Network.requestWillBeSent":
                if params["request"]["url"] != url:
                    requests.append(params["request"]["url"])
        report.update(
            console=console, exceptions=exceptions, requests=requests, screenshot=base64.b64decode(shot["data"])
        )
        try:
            pipe.send("Browser.close")
        except (RuntimeError, TimeoutError):
            pass
        return report
    finally:
        os.close(to_child_w)
        os.close(from_child_r)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
