"""A real local evidence site for tests: normal and hostile pages on 127.0.0.1 (threaded http.server).

Pages:
  /ja/fuji           Japanese article (UTF-8)
  /en/fuji           English article (UTF-8)
  /ja/sjis           Japanese article in Shift_JIS, charset only in the HTTP header
  /ja/sjis-meta      Shift_JIS, charset only in <meta>
  /ja/eucjp          Japanese article in EUC-JP, no charset declared at all
  /plain             text/plain
  /gzip              a normal page, gzip-encoded
  /404               404
  /flaky             502 on the first request, then 200 (per site instance)
  /always503         always 503
  /slow              sleeps `slow_seconds` before answering
  /endless           an endless body (no Content-Length)
  /bomb              a gzip bomb (a few KB that inflate to 50 MB)
  /loop              redirects to itself forever
  /to-metadata       302 to http://169.254.169.254/latest/meta-data/
  /to-loopback       302 to a loopback port that is not allow-listed (`other_port`)
  /to-fuji           302 to /en/fuji
  /binary            binary bytes served as text/html
  /empty             an empty 200 text/html page
  /pdf               application/pdf
  /links             3 MB of HTML holding 100,000 links: text extraction takes many seconds
  /bad-location/<k>  302 with a malformed Location (BAD_LOCATIONS[k], raw bytes)
  /bad-header/<k>    a 200 whose head is malformed (BAD_HEADS[k], raw bytes)
  /changing          `changing_text` (set it to change the page) with an ETag and a Last-Modified of
                     that text; answers 304 to a matching If-None-Match (counted in `not_modified`)
  /big/<n>           about 1 MB of distinct plain text (n = any word): six of them exceed the
                     5,000,000 characters of evidence one validation may judge
"""

from __future__ import annotations

import gzip
import hashlib
import io
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JA_FUJI = """<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>富士山 - 山の事典</title>
<meta property="article:published_time" content="2024-05-01"></head><body>
<nav>ホーム | 山の事典 | お問い合わせ</nav>
<article><h1>富士山</h1>
<p>富士山は静岡県と山梨県にまたがる活火山である。標高は3776メートルで、日本で最も高い山である。</p>
<p>最後の噴火は1707年の宝永噴火である。それ以降、噴火は起きていない。</p>
<p>2013年に世界文化遺産に登録された。登山シーズンは毎年7月上旬から9月上旬までである。</p>
</article><footer>著作権 山の事典</footer></body></html>"""

EN_FUJI = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mount Fuji - Mountain Encyclopedia</title></head>
<body><nav>Home | Encyclopedia | Contact</nav><article><h1>Mount Fuji</h1>
<p>Mount Fuji is an active stratovolcano located on the island of Honshu in Japan.</p>
<p>It is 3,776 metres high and is the highest mountain in Japan.</p>
<p>The last eruption of Mount Fuji occurred in 1707, during the Edo period.</p>
<p>Mount Fuji was added to the World Heritage List as a cultural site in 2013.</p>
</article><footer>Copyright</footer></body></html>"""

SJIS_TEXT = """<html><head><title>東京タワー</title></head><body><article><h1>東京タワー</h1>
<p>東京タワーは東京都港区芝公園にある総合電波塔である。高さは333メートルである。</p>
<p>東京タワーは1958年に完成した。</p></article></body></html>"""

SJIS_META = """<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">
<title>大阪城</title></head><body><article><h1>大阪城</h1>
<p>大阪城は豊臣秀吉が築いた城である。現在の天守閣は1931年に再建された。</p></article></body></html>"""

EUC_TEXT = """<html><head><title>琵琶湖</title></head><body><article><h1>琵琶湖</h1>
<p>琵琶湖は滋賀県にある日本最大の湖である。面積は約670平方キロメートルである。</p>
<p>琵琶湖は近畿地方の水がめと呼ばれている。</p></article></body></html>"""

PLAIN = "The Shinkansen began service in 1964.\nIt connects Tokyo and Osaka.\n"


def _bomb(size: int = 50 * 1024 * 1024) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as gz:
        chunk = b"\0" * (1024 * 1024)
        for _ in range(size // len(chunk)):
            gz.write(chunk)
    return buf.getvalue()


def links_page(count: int = 100_000) -> bytes:
    """About 3 MB of HTML whose main-text extraction takes far longer than a fetch timeout."""
    head = "<!doctype html><html><head><meta charset='utf-8'><title>Links</title></head><body><article><ul>"
    items = "".join(f"<li><a href='/p/{i}'>{i}</a>" for i in range(count))
    return (head + items + "</ul></article></body></html>").encode()


def big_text(name: str, chars: int = 1_050_000) -> bytes:
    """About `chars` characters of plain text, different for every name."""
    line = f"Page {name} repeats this sentence about mountains and lakes to fill space.\n"
    return (line * (chars // len(line) + 1)).encode()


# Red-team item 3: each of these made a dry run and `POST /v1/batches` answer 500.
BAD_LOCATIONS: tuple[bytes, ...] = (
    b"http:\\\\x",
    b"https:\\x",
    b"http://[::1",
    b"http://a b/",
    b"http://\xff\xfe/",
    b"http://exa\tmple.com/",
    b"//[",
    b"http://x:99999999/",
)
BAD_HEADS: tuple[bytes, ...] = (
    b"Content-Type: text/html\r\nContent-Length: x\r\n",
    b"Content-Type: text/html\r\nno colon here\r\nContent-Length: 2\r\n",
    b"Content-Type: text/html\x00\r\nContent-Length: 2\r\n",
    b"Content-Type: text/html\r\nContent-Encoding: br\r\nContent-Length: 2\r\n",
)


class EvidenceSite:
    def __init__(self, *, slow_seconds: float = 5.0, other_port: int = 9) -> None:
        self.slow_seconds = slow_seconds
        self.other_port = other_port
        self.hits: dict[str, int] = {}
        self._lock = threading.Lock()
        self._bomb = _bomb()
        self.changing_text = "<p>-</p>"
        self.not_modified = 0
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> EvidenceSite:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> EvidenceSite:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def allow_entry(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str, **headers: str) -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            h.send_header(key.replace("_", "-"), value)
        h.end_headers()
        h.wfile.write(body)

    def _changing(self, h: BaseHTTPRequestHandler) -> None:
        body = f"<!doctype html><html><head><title>changing</title></head><body>{self.changing_text}</body></html>"
        tag = '"' + hashlib.sha256(body.encode()).hexdigest()[:16] + '"'
        if h.headers.get("If-None-Match") == tag:
            with self._lock:
                self.not_modified += 1
            h.send_response(304)
            h.send_header("ETag", tag)
            h.end_headers()
            return
        self._send(h, 200, body.encode(), "text/html; charset=utf-8", ETag=tag)

    def _redirect(self, h: BaseHTTPRequestHandler, location: str) -> None:
        h.send_response(302)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        with self._lock:
            self.hits[path] = self.hits.get(path, 0) + 1
            count = self.hits[path]
        html = "text/html; charset=utf-8"
        try:
            if path == "/changing":
                self._changing(h)
            elif path == "/ja/fuji":
                self._send(h, 200, JA_FUJI.encode(), html)
            elif path == "/en/fuji":
                self._send(h, 200, EN_FUJI.encode(), html)
            elif path == "/ja/sjis":
                self._send(h, 200, SJIS_TEXT.encode("shift_jis"), "text/html; charset=Shift_JIS")
            elif path == "/ja/sjis-meta":
                self._send(h, 200, SJIS_META.encode("shift_jis"), "text/html")
            elif path == "/ja/eucjp":
                self._send(h, 200, EUC_TEXT.encode("euc_jp"), "text/html")
            elif path == "/plain":
                self._send(h, 200, PLAIN.encode(), "text/plain; charset=utf-8")
            elif path == "/gzip":
                self._send(h, 200, gzip.compress(EN_FUJI.encode()), html, Content_Encoding="gzip")
            elif path == "/404":
                self._send(h, 404, b"<html><body>not here</body></html>", html)
            elif path == "/flaky":
                if count == 1:
                    self._send(h, 502, b"bad gateway", "text/plain")
                else:
                    self._send(h, 200, EN_FUJI.encode(), html)
            elif path == "/always503":
                self._send(h, 503, b"unavailable", "text/plain", Retry_After="0")
            elif path == "/slow":
                time.sleep(self.slow_seconds)
                self._send(h, 200, EN_FUJI.encode(), html)
            elif path == "/endless":
                h.send_response(200)
                h.send_header("Content-Type", html)
                h.send_header("Connection", "close")
                h.end_headers()
                chunk = b"<p>" + b"filler text " * 5000 + b"</p>\n"
                for _ in range(100_000):  # far beyond any cap; stops when the client hangs up
                    h.wfile.write(chunk)
            elif path == "/bomb":
                self._send(h, 200, self._bomb, html, Content_Encoding="gzip")
            elif path == "/loop":
                self._redirect(h, "/loop")
            elif path == "/to-metadata":
                self._redirect(h, "http://169.254.169.254/latest/meta-data/")
            elif path == "/to-loopback":
                self._redirect(h, f"http://127.0.0.1:{self.other_port}/secret")
            elif path == "/to-fuji":
                self._redirect(h, "/en/fuji")
            elif path == "/binary":
                self._send(h, 200, bytes(range(256)) * 64, html)
            elif path == "/empty":
                self._send(h, 200, b"", html)
            elif path.startswith("/bad-location/"):
                location = BAD_LOCATIONS[int(path.removeprefix("/bad-location/"))]
                h.wfile.write(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")
            elif path.startswith("/bad-header/"):
                head = BAD_HEADS[int(path.removeprefix("/bad-header/"))]
                h.wfile.write(b"HTTP/1.1 200 OK\r\n" + head + b"\r\nok")
                h.close_connection = True
            elif path.startswith("/big/"):
                self._send(h, 200, big_text(path.removeprefix("/big/")), "text/plain; charset=utf-8")
            elif path == "/links":
                self._send(h, 200, links_page(), html)
            elif path == "/pdf":
                self._send(h, 200, b"%PDF-1.4\n%binary", "application/pdf")
            else:
                self._send(h, 404, b"no such page", "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            pass
