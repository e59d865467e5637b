#!/usr/bin/env python3
# seeds.py: writes the first seeds of the harnesses added for issue 33
# (runner-result, fetch-result, fetch-status, model-reply, escape,
# turn-event) and the console kinds frame-fuzzer had no seed for, from real
# shapes: bxtool's status lines (src/bxtool/status.c), curl's header dumps
# and stderr (curl 7.88's own), the runtimes' own words, the bodies
# llama-server sent (../shared/notes/llama-server-shapes.md) and the
# fixtures under tests/fixtures. Run once from the top of the tree; what
# fuzzing adds is merged into the same folders with -merge=1. With names
# (fuzz/seeds.py stream turn-event), only those corpora are written, so
# a corpus not changed is not touched.
import json
import os
import struct
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "fuzz", "corpus")
fixtures = os.path.join(root, "tests", "fixtures")


only = set(sys.argv[1:])


def put(name, seed, data):
    if only and name not in only:
        return
    d = os.path.join(corpus, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, seed), "wb") as f:
        f.write(data)


def piece(b):
    return struct.pack("<H", len(b)) + b


READ, WRITE, SHELL, FETCH = 0, 1, 2, 3
EXITED, TIMED_OUT, CAPPED, HUNG_UP = 0, 1, 2, 3
STARTED = b"bxtool: started\n"


def final(word):
    return STARTED + b"\nbxtool: " + word + b"\n"


# runner-result: tool, end|oom<<2|lost<<3|fill<<4|pids hit<<6|pids at
# its most<<7, limit index, wait status, then stdout and stderr.
def run(seed, tool, out, err, end=EXITED, flags=0, limit=0, wait=0):
    put("runner-result", seed, bytes([tool, end | flags, limit, wait]) +
        piece(out) + piece(err))


run("shell-ok", SHELL, b"total 0\nnotes\n", final(b"exit 0"))
run("shell-exit-2", SHELL, b"ls: cannot access 'x'\n", final(b"exit 2"))
run("shell-signal", SHELL, b"partial", final(b"signal 9"))
run("shell-no-newline", SHELL, b"no newline at the end", final(b"exit 1"))
run("shell-invalid-utf8", SHELL, b"caf\xc3\xa9 \xff\xfe \xe2\x82", final(b"exit 0"))
run("shell-nul-esc", SHELL, b"a\x00b\x1b[31mred\x1b[0m\r\n", final(b"exit 0"))
run("shell-stray-stderr", SHELL, b"out",
    b"warning: something\n" + STARTED + b"noise on stderr\n\nbxtool: exit 3\n")
run("read-ok", READ, "# Notes\ncafé ☕ 日本語\n".encode(), final(b"ok"))
run("read-truncated", READ, b"x" * 200, final(b"truncated"))
run("read-failed", READ, b"",
    final(b"failed cannot open /home/kyle/x: No such file or directory"))
run("write-ok", WRITE, b"", final(b"ok"))
run("podman-not-started", READ, b"",
    b"Error: crun: executable file `/.boxmaker/bxtool` not found in $PATH: "
    b"No such file or directory: OCI runtime attempted to invoke a command "
    b"that was not found\n", wait=125)
run("bwrap-not-started", SHELL, b"",
    b"bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n",
    wait=1)
run("not-started-latin1", SHELL, b"", b"bwrap: Can't find source path /home/k\xe9\xe9: No such file\n")
run("timed-out", SHELL, b"working...\n", STARTED, end=TIMED_OUT)
run("start-timed-out", SHELL, b"", b"", end=TIMED_OUT)
run("hung-up", SHELL, b"", STARTED, end=HUNG_UP)
run("oom", SHELL, b"", STARTED, flags=4, wait=0x89)
run("err-lost", SHELL, b"out", STARTED + b"x" * 100, flags=8)
run("capped-fill", SHELL, "日本".encode(), STARTED, end=CAPPED, flags=0x20)
run("capped-split", READ, "é".encode(), STARTED, end=CAPPED, flags=0x10, limit=2)
run("ok-past-limit", READ, "☕".encode(), final(b"ok"), flags=0x20, limit=1)
run("escapes-fill-frame", READ, b"\x01\"\\", final(b"ok"), flags=0x10, limit=7)
run("no-status", READ, b"", STARTED, wait=0x8b)
run("no-status-exit", READ, b"", STARTED + b"\n", wait=1)
run("fetch-200", FETCH, b"<html>hello</html>", final(b"http 200"))
run("fetch-404", FETCH, b"Not Found", final(b"http 404"))
run("fetch-truncated", FETCH, b"0123456789" * 120, final(b"http 200 truncated"), limit=0)
run("fetch-failed", FETCH, b"",
    final(b"failed curl: (97) Can't complete SOCKS5 connection to example.com. (2)"))
run("fetch-binary", FETCH, b"\x89PNG\r\n\x1a\n\x00\x00", final(b"http 200"))
run("start-split", SHELL, b"", b"x\nbxtool: sta" + b"rted\n\nbxtool: ok\n", wait=5)
PIDS_HIT, PIDS_MOST = 0x40, 0x80
run("pids-exit", SHELL, b"fork: Resource temporarily unavailable\n",
    final(b"exit 254"), flags=PIDS_HIT | PIDS_MOST)
run("pids-capped", SHELL, b"y\n", STARTED, end=CAPPED, flags=PIDS_HIT | 0x20)
run("pids-timed-out", SHELL, b"", STARTED, end=TIMED_OUT, flags=PIDS_HIT)
run("pids-no-status", READ, b"", STARTED, flags=PIDS_HIT, wait=0x89)


# fetch-result: limit index|capped<<6|signal<<7, the body, bxtool's
# stderr, the egress report.
def fetch(seed, body, err, report=b"", b0=0):
    put("fetch-result", seed, bytes([b0]) + piece(body) + piece(err) +
        piece(report))


fetch("ok-200", b'{"ok":true}', final(b"http 200"),
      b"allowed example.com:443\n")
fetch("ok-204-empty", b"", final(b"http 204"))
fetch("redirected-301", b"", final(b"http 301"))
fetch("not-found", "<h1>Not Found</h1> é".encode(), final(b"http 404"))
fetch("server-error-long", b"E" * 2000, final(b"http 500"))
fetch("truncated", b"a" * 1024, final(b"http 200 truncated"))
fetch("truncated-split", b"a" * 1023 + "é".encode(), final(b"http 200 truncated"))
fetch("not-utf8", b"\xff\xfe\x00", final(b"http 200"))
fetch("curl-failed", b"",
      final(b"failed curl: (35) OpenSSL SSL_connect: Connection reset by peer"))
fetch("refused", b"",
      final(b"failed curl: (97) Can't complete SOCKS5 connection to evil.example. (2)"),
      b"refused evil.example:443 not in the grant's hosts\n")
fetch("refused-address", b"",
      final(b"failed curl: (97) Can't complete SOCKS5 connection"),
      b"allowed example.com:443\nrefused example.com:443 resolves to 127.0.0.1, "
      b"a local address\n")
fetch("limit", b"a" * 100, final(b"http 200"),
      b"allowed example.com:443\nlimit 10485760\n")
fetch("report-controls", b"", final(b"failed curl: (6)"),
      b"refused \x1b[31mhost\xc3\xa9:443 \x00reason\nlimit -5\nlimit\nrefused nospace\n")
fetch("http-words", b"x", final(b"http 200 words"))
fetch("http-overflow", b"x", final(b"http 99999999999"))
fetch("no-status", b"body", STARTED)


# fetch-status: the size of the pieces the dump is fed in, then curl's
# header dump and its stderr, where bxtool's --write-out line ends
# (src/bxtool/fetch.c). The trailers and the error lines are curl 7.88's,
# from a local server that sent them and from hosts it could not reach.
CODE = b"\nbxtool-curl-code: "


def status(seed, dump, err=CODE + b"200\n", step=7):
    put("fetch-status", seed, bytes([step]) + piece(dump) + piece(err))


OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n"
status("ok-200", OK)
status("redirect-301-200", b"HTTP/1.1 301 Moved Permanently\r\n"
       b"Location: https://b.example/\r\nContent-Length: 0\r\n\r\n" + OK,
       b"\n" + CODE + b"200\n", step=1)
status("redirect-chain-404", b"HTTP/2 302 \r\nlocation: /a\r\n\r\n"
       b"HTTP/2 307 \r\nlocation: /b\r\n\r\nHTTP/2 404 \r\n"
       b"content-type: text/html\r\n\r\n", CODE + b"404\n")
status("continue-100", b"HTTP/1.1 100 Continue\r\n\r\n" + OK)
status("early-hints-103", b"HTTP/2 103 \r\nlink: </s.css>; rel=preload\r\n"
       b"\r\nHTTP/2 200 \r\n\r\n")
status("header-lookalike", b"HTTP/1.1 200 OK\r\n"
       b"HTTP/1.1 500 Internal Server Error\r\n\r\n")
status("trailer-lookalike", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
       b"Connection: close\r\n\r\nHTTP/1.1 500 x: y\r\n")
status("redirect-trailers", b"HTTP/1.1 301 Moved\r\nLocation: /\r\n"
       b"Transfer-Encoding: chunked\r\n\r\nX-R: 2\r\nHTTP/1.1 200 OK\r\n"
       b"Transfer-Encoding: chunked\r\n\r\nX-T: 1\r\nHTTP/1.1 500 x: y\r\n",
       step=3)
status("lf-only", b"HTTP/1.1 302 Found\nLocation: /x\n\nHTTP/1.1 201 Created\n\n")
status("cut-dump", b"HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\n"
       b"HTTP/1.1 404 Not Found\r\nContent-Ty", b"", step=5)
status("empty", b"", b"")
status("junk-codes", b"HTTP/1.1 2000 OK\r\nHTTP/1.1 20x\r\n\r\n"
       b"HTTP/1.1 600 x\r\n\r\nHTTP/1.1 099\r\nHTTP/1.1\t200\r\n"
       b"HTTP/1.1 200\x00\r\n\r\n", CODE + b"2000\n")
status("long-lines", b"HTTP/12345678901234567890123 200\r\n\r\n"
       b"HTTP/1.1 200 OK " + b"reason " * 20 + b"\r\n" + b"X-Long: " +
       b"a" * 300 + b"\r\n\r\n", CODE + b"20", step=31)
status("curl-resolve", b"", b"curl: (6) Could not resolve host: "
       b"nonexistent.invalid\n" + CODE + b"000\n")
status("curl-connect", b"", b"curl: (7) Failed to connect to localhost/run/"
       b"egress.sock port 1080 after 0 ms: Couldn't connect to server\n" +
       CODE + b"000\n")
status("curl-protocol", b"HTTP/1.1 301 Moved\r\nLocation: http://a.example/\r\n\r\n",
       b"curl: (1) Protocol \"http\" not supported or disabled in libcurl\n" +
       CODE + b"301\n")
status("curl-socks", b"", b"curl: (97) Can't complete SOCKS5 connection to "
       b"evil.example. (2)\n" + CODE + b"000\n")
status("curl-cut-body", OK, b"curl: (56) Failure when receiving data from the peer\n")
status("code-repeated", OK, CODE + b"301\nmiddle" + CODE + b"404\n" + CODE)
status("code-junk", OK, b"warning\x00\xff" + CODE + b"20x\n" + CODE +
       b"200 \n" + b"bxtool-curl-code: 200\n")


# model-reply: the bodies llama-server sent, and the shapes the notes list.
def body(seed, text):
    put("model-reply", seed, text.encode())


body("tool-call", '{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"clock","arguments":"{\\n}"},"id":"0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O"}]}}],"created":1796181416,"model":"tiny-toolcall.gguf","system_fingerprint":"b18-81ff7abe5","object":"chat.completion","usage":{"completion_tokens":15,"prompt_tokens":277,"total_tokens":292,"prompt_tokens_details":{"cached_tokens":0}},"id":"chatcmpl-pi2ykDkd6lsCcEqYteN2aQou4OKIqugr","timings":{"cache_n":0,"prompt_n":277,"prompt_ms":8.592,"prompt_per_token_ms":0.031018050541516247,"prompt_per_second":32239.292364990688,"predicted_n":15,"predicted_ms":33.702,"predicted_per_token_ms":2.2468,"predicted_per_second":445.0774434751647}}')
body("find-tool", '{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"find_tool","arguments":"{\\"query\\":\\"\\" }"},"id":"qwrO686A2rlE5YxB00VCrrqzs0E8G8Jj"}]}}],"created":1796181452,"model":"tiny-toolcall.gguf","object":"chat.completion","usage":{"completion_tokens":20,"prompt_tokens":552,"total_tokens":572}}')
body("call-tool-nested", '{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"call_tool","arguments":"{\\"name\\": \\"read_file\\",\\"arguments\\" : {\\"path\\":\\"/etc/hostname\\"}}"},"id":"a"},{"type":"function","function":{"name":"clock","arguments":{}},"id":"b"}]}}]}')
body("text", '{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"I called clock, find_tool and call_tool; their results are above."}}],"created":1796181452,"model":"tiny-toolcall.gguf","object":"chat.completion","usage":{"completion_tokens":17,"prompt_tokens":881,"total_tokens":898}}')
body("length-content", '{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"<tool_call>\\n\\n {\\"name\\":\\"clock"}}],"usage":{"completion_tokens":6}}')
body("length-args", '{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"clock","arguments":"{"},"id":"pWTVRyQ6IDMsaPKB2icysdinXW50l9cC"}]}}]}')
body("args-array", '{"choices":[{"message":{"tool_calls":[{"function":{"name":"x","arguments":"[1,2]"}},{"function":{"name":"y","arguments":null}},{"function":{"name":"z"}}]}}]}')
body("args-dup", '{"choices":[{"message":{"tool_calls":[{"function":{"name":"x","arguments":"{\\"a\\":1,\\"a\\":2}"}}]}}]}')
body("args-deep-string", '{"choices":[{"message":{"tool_calls":[{"function":{"name":"x","arguments":"' + '{\\"a\\":' * 40 + '1' + '}' * 40 + '"}}]}}]}')
body("error-400", '{"error":{"code":400,"message":"request (5273 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5273,"n_ctx":4096}}')
body("error-500", '{"error":{"code":500,"message":"[json.exception.parse_error.101] parse error at line 1, column 33: syntax error while parsing value - unexpected end of input; expected \'[\', \'{\', or a literal","type":"server_error"}}')
body("no-choices", '{"choices":[],"usage":{"completion_tokens":1}}')
body("bad-content", '{"choices":[{"message":{"content":123}}]}')
body("chunk", 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk"}\n\ndata: [DONE]\n\n')


# escape: the first byte is escape_buf's size, then the text.
def esc(seed, text):
    put("escape", seed, bytes([12]) + text)


esc("ascii", b"Hello from the tiny test model.")
esc("csi", b"\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J")
esc("c0", bytes(range(0, 32)) + b"\x7f")
esc("c1", "\u0080\u0085\u009b\u009f".encode())
esc("bidi", "\u202a\u202b\u202c\u202d\u202e \u2066\u2067\u2068\u2069 \u200e\u200f\u061c".encode())
esc("zero-width", "a\u200bb\u200cc\u200dd\u2060e\ufefff\u2061\u2064\u2028\u2029".encode())
esc("invalid", b"\x80\xbf\xc0\xaf\xc2\xe0\x80\xaf\xed\xa0\x80\xf4\x90\x80\x80\xf8\xff")
esc("cut-sequence", "日本語".encode()[:-1])
esc("mixed", "café ☕ 𝄞 \u0301 \t\n\r".encode())
esc("newline", b"line one\nline two\n")
esc("nul", b"a\x00b")


# turn-event: 0 and loopd's frames, or 1 and one audit line.
def msgs(*names):
    data = b""
    for n in names:
        with open(os.path.join(fixtures, "messages", n + ".jsonl"), "rb") as f:
            data += f.read().rstrip(b"\n") + b"\n"
    return data


events = ["turn_event-started", "turn_event-text", "turn_event-tool_call",
          "turn_event-approval_pending", "turn_event-tool_result",
          "turn_event-done"]
put("turn-event", "chat-turn", b"\x00" + msgs(*events))
for e in events + ["turn_event-error", "error"]:
    put("turn-event", "chat-" + e, b"\x00" + msgs(e))
put("turn-event", "chat-partial", b"\x00" + msgs("turn_event-text")[:-20])
put("turn-event", "chat-escapes", b"\x00" + b'{"kind":"turn_event","final":false,'
    b'"type":"text","text":"\\u001b[2J\xe2\x80\xae\\u007f\xc2\x9b"}\n')


# turn.c's printer between events: lines of text_delta pieces and what
# ends them (the text that repeats them, another text, the reply, a call,
# loopd going away), an approval past loopd's hour, an approved call.
def ev(type_, final=False, **fields):
    frame = {"kind": "turn_event", "final": final, "type": type_}
    frame.update(fields)
    return json.dumps(frame, ensure_ascii=False).encode() + b"\n"


def deltas(*pieces):
    return b"".join(ev("text_delta", text=p) for p in pieces)


STARTED_EV = ev("started", session="chat-1758200000000")
put("turn-event", "chat-deltas-repeat", b"\x00" + STARTED_EV +
    deltas("Let me", " look.") + ev("text", text="Let me look.") +
    ev("done", final=True, reply="Let me look."))
put("turn-event", "chat-deltas-other-text", b"\x00" +
    deltas("Let me", " look") + ev("text", text="Let me look.") +
    deltas("Done") + ev("done", final=True, reply="Done"))
put("turn-event", "chat-deltas-reply", b"\x00" + deltas("Your notes ", "hold a.md.") +
    ev("done", final=True, reply="Your notes hold one file, a.md."))
put("turn-event", "chat-deltas-escapes", b"\x00" +
    deltas("\x1b[", "2J", "\u202e", "caf", "\u00e9 \u2028", "\x7f\u009b31m") +
    ev("error", final=True, message="the model server is unavailable"))
put("turn-event", "chat-deltas-call", b"\x00" + STARTED_EV +
    deltas("Reading", " it.") +
    ev("tool_call", call="call_0", tool="read_file",
       arguments='{"path":"/home/kyle/notes/a.md"}') +
    ev("approval_pending", approval=41, tool="read_file",
       expires="9999-12-31T23:59:59.999Z") +
    ev("tool_running", call="call_0", tool="read_file") +
    ev("tool_result", call="call_0", status="result", content="# Notes\n",
       **{"class": "private", "untrusted": True}) +
    deltas("It holds ", "notes."))
put("turn-event", "chat-deltas-cut", b"\x00" + STARTED_EV + deltas("half a li"))
put("turn-event", "chat-result-pending", b"\x00" +
    ev("tool_result", call="call_0", status="pending_approval",
       content="", **{"class": "public", "untrusted": False}))
for n in sorted(os.listdir(os.path.join(fixtures, "audit-records"))):
    with open(os.path.join(fixtures, "audit-records", n), "rb") as f:
        put("turn-event", "log-" + n.split(".")[0],
            b"\x01" + f.read().rstrip(b"\n"))

# stream: the first byte is where the body is cut in two, then the body.
# The recorded streams came first (fuzz/corpus/stream/*.sse); these are
# the shapes they lack: the other SSE fields and comments, CR LF, an
# event of two data lines, the error line of older llama-servers, and
# chunks that are not what llama-server sends.
def sse(seed, *events, cut=0x80, tail=b"data: [DONE]\n\n"):
    body = b""
    for e in events:
        body += e if isinstance(e, bytes) else \
            b"data: " + json.dumps(e).encode() + b"\n\n"
    put("stream", seed, bytes([cut]) + body + tail)


def chunk(delta=None, finish=None, **more):
    c = {"choices": [{"index": 0, "delta": {} if delta is None else delta,
                      "finish_reason": finish}],
         "object": "chat.completion.chunk"}
    c.update(more)
    return c


def frag(index=0, **fn):
    f = {"type": "function", "function": fn}
    if index is not None:
        f["index"] = index
    return chunk({"tool_calls": [f]})


STOP = chunk(finish="stop")
TOOL_CALLS = chunk(finish="tool_calls")
sse("fields-crlf", b": ping\r\n\r\nevent: message\r\nid: 7\r\nretry: 100\r\n"
    b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\r\n\r\n',
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
    b"\r\n\r\n", tail=b"data: [DONE]\r\n\r\n", cut=0x30)
sse("two-data-lines", b'data: {"choices":[{"index":0,\ndata: "delta":'
    b'{"content":"Hi"}}]}\n\n', STOP)
sse("after-done", chunk({"content": "Hi"}), STOP, b"data: [DONE]\n\n",
    chunk({"content": " again"}))
sse("error-line-json", chunk({"content": "Hi"}),
    b'error: {"error":{"code":500,"message":"the slot was released"}}\n\n')
sse("error-line-object", b'error: {"code":503,"message":"loading model"}\n\n')
sse("error-line-text", b"error: the server is shutting down\n\n", cut=0x08)
sse("error-string", {"error": "out of memory in the KV cache"})
sse("not-json", b"data: {\"choices\":[\n\n")
sse("not-json-at-end", chunk({"content": "Hi"}), tail=b"data: {\"choices\"")
sse("usage-only", {"usage": {"completion_tokens": 3}}, STOP)
sse("choices-object", {"choices": {}})
sse("choice-number", {"choices": [1]})
sse("delta-null", {"choices": [{"index": 0, "delta": None,
                                 "finish_reason": "stop"}]})
sse("delta-string", chunk("hello"))
sse("content-number", chunk({"content": 5}))
sse("content-empty", chunk({"content": ""}), chunk({"content": "Hi"}), STOP)
sse("tool-calls-object", chunk({"tool_calls": {}}))
sse("fragment-number", chunk({"tool_calls": [1]}))
sse("index-missing", frag(None, name="clock", arguments="{}"), TOOL_CALLS)
sse("index-negative", frag(-1, name="clock", arguments="{}"), TOOL_CALLS)
sse("index-past-max", frag(32, name="clock", arguments="{}"), TOOL_CALLS)
sse("index-gap", frag(1, name="clock", arguments="{}"), TOOL_CALLS)
sse("arguments-object", frag(0, name="call_tool", arguments={
    "name": "read_file", "arguments": {"path": "/etc/hostname"}}), TOOL_CALLS)
sse("arguments-missing", frag(0, name="clock"), TOOL_CALLS)
sse("unclosed-event", chunk({"content": "Hi"}),
    tail=b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')

# frame: the console kinds (issue 25) had no seed.
for n in sorted(os.listdir(os.path.join(fixtures, "messages"))):
    dst = os.path.join(corpus, "frame", n)
    if not os.path.exists(dst):
        with open(os.path.join(fixtures, "messages", n), "rb") as f:
            put("frame", n, f.read())

# redact (issue 41): settings (kind | limit on << 2 | cut tail << 3, the
# limit, the cut occurrence's op, length and seed), the value and basic's
# user as pieces of bytes the harness maps to printable ASCII, then
# segments: an op byte, 0 and a piece of text, or form << 3 | encoding
# (1 as it is, 2 hex, 3 base64, 4 percent, 5 JSON, 6 both, 7 upper hex)
# and a seed byte.
def redact(seed, value, segments, kind=0, limit=None, tail=None, user=b""):
    def unmap(s):
        return bytes((c - 0x21) if i in (0, len(s) - 1) else (c - 0x20)
                     for i, c in enumerate(s))
    flags = kind | (4 if limit is not None else 0) | (8 if tail else 0)
    top, tk, ts = tail or (0, 0, 0)
    head = bytes([flags]) + struct.pack("<H", limit or 0) + bytes([top]) + \
        struct.pack("<HH", tk, ts)
    body = b""
    for s in segments:
        body += b"\x00" + piece(s) if isinstance(s, bytes) else \
            bytes([s[0] << 3 | s[1], s[2] if len(s) > 2 else 0])
    put("redact", seed, head + piece(unmap(value)) + piece(unmap(user)) +
        body)


VAL = b"s3cr3t>T0k?n/42~x"
EVERY = [(0, e, 7 * e) for e in range(1, 8)]
redact("bearer-every-encoding", VAL,
       [b"HTTP/1.1 200 OK\r\n\r\n"] + sum(([x, b" "] for x in EVERY), []))
redact("bearer-header-forms", VAL, [b"Authorization: ", (1, 1), b"\n",
                                     (1, 3, 1), b" ", (1, 4, 2)])
redact("httpbin-echo", VAL, [b'{\n  "headers": {\n    "Authorization": "',
                             (1, 5, 9), b'"\n  }\n}\n'])
redact("basic-user", VAL, [b"u=", (1, 1), b" b=", (2, 3, 4), (2, 5, 3)],
       kind=2, user=b"kyle")
redact("header-limit-cut", VAL, [b"x" * 40, (0, 1), b"y" * 40], kind=1,
       limit=50, tail=(0 << 3 | 2, 20, 77))
redact("cut-percent", VAL, [b"q=", (0, 4, 5)], tail=(4, 13, 5))
redact("cut-base64", VAL, [b"t="], tail=(3, 15, 0x0102))
redact("periodic", b"a" * 64, [b"a" * 2000, (0, 3, 0), b"a" * 100])
redact("value-with-escapes", b"p%41ss\\nword", [(0, 1), b" ", (0, 4, 6),
                                               (0, 5, 2)])
redact("marker-is-value", b"[secret k]", [b"a ", (0, 1), b" b"])


# answer: what a Mattermost server says of a request post (issue 42): its
# reactions, its thread (a PostList), and replies' words, with the ids
# answer-fuzzer.c's context uses.
OWNER, BOT = "owner0000000000000000000aa", "bridgebot00000000000000000"
POST, DM = "request0000000000000000000", "dmchannel00000000000000000"


def reaction(user, emoji, at, post=POST):
    return {"user_id": user, "post_id": post, "emoji_name": emoji,
            "create_at": at, "update_at": at, "delete_at": 0}


def post(pid, message, at, user=OWNER, root=POST, props=None, type_=""):
    return {"id": pid, "create_at": at, "update_at": at, "edit_at": 0,
            "delete_at": 0, "is_pinned": False, "user_id": user,
            "channel_id": DM, "root_id": root, "original_id": "",
            "message": message, "type": type_, "props": props or {},
            "hashtags": "", "pending_post_id": "", "reply_count": 1,
            "metadata": {}}


def postlist(*posts):
    return {"order": [p["id"] for p in posts],
            "posts": {p["id"]: p for p in posts},
            "next_post_id": "", "prev_post_id": "",
            "has_next": False}


def answer(seed, value):
    put("answer", seed, json.dumps(value, indent=1).encode())


ROOT = post(POST, "**Boxmaker asks** (approval 42)", 1000, user=BOT,
            root="")
answer("reactions-approve", [reaction(OWNER, "white_check_mark", 2000)])
answer("reactions-mixed", [reaction(BOT, "+1", 1500),
                           reaction("someoneelse000000000000000", "x", 1600),
                           reaction(OWNER, "-1", 2000),
                           reaction(OWNER, "+1", 2000),
                           reaction(OWNER, "heart", 1900, post="x" * 26)])
answer("reactions-null", None)
answer("thread-approve", postlist(ROOT, post("reply00000000000000000000a",
                                             " Approve\n", 2000)))
answer("thread-refuse-reason", postlist(
    ROOT, post("reply00000000000000000000b", "refuse not today", 2100),
    post("reply00000000000000000000c", "yes", 1900)))
answer("thread-lookalikes", postlist(
    ROOT,
    post("reply00000000000000000000d", "approve", 2000,
         props={"from_webhook": "true", "override_username": "x"}),
    post("reply00000000000000000000e", "approve", 2001,
         props={"from_bot": "true"}),
    post("reply00000000000000000000f", "approve", 2002, root="x" * 26),
    post("reply00000000000000000000g", "approve", 2003,
         type_="system_join_channel"),
    post("reply00000000000000000000h", "approve please", 2004)))
put("answer", "text-refuse-utf8", "REFUSE\tcafé \u202e\n".encode())
put("answer", "text-approve", b"\r\n approve \t")

# secret (issue 41): a piece, the value's middle (the harness makes the
# value "@" + middle + " @"), then the file's text, each 0xff in it the
# value and each 0xfe the value in \u00XX escapes. Every kind well formed,
# and the value put where a message might quote it.
def secret(seed, text, middle=b"ghp_s3cretVALUEx9"):
    put("secret", seed, piece(middle) + text)


HOSTS = b'hosts = ["api.github.com", "uploads.github.com"]\n'
secret("bearer", b'kind = "bearer"\n' + HOSTS + b'value = "\xff"\n')
secret("bearer-escaped", b'kind = "bearer"\n' + HOSTS + b'value = "\xfe"\n')
secret("header", b'kind = "header"\nheader = "X-Api-Key"\n' + HOSTS +
       b'value = "\xff"\n')
secret("basic", b'kind = "basic"\nuser = "kyle"\n' + HOSTS +
       b'value = "\xff"\n')
secret("literal-string", b"kind = 'bearer'\nhosts = ['a.example']\n"
       b"value = '\xff'\n")
secret("multiline", b'kind = "bearer"\nhosts = ["a.example"]\n'
       b'value = """\n\xff"""\n')
secret("unquoted-value", b'kind = "bearer"\n' + HOSTS + b"value = \xff\n")
secret("value-as-key", b'kind = "bearer"\n' + HOSTS + b'\xff = "x"\n')
secret("value-as-quoted-key", b'kind = "bearer"\n' + HOSTS +
       b'"\xfe" = "x"\n')
secret("value-as-host", b'kind = "bearer"\nhosts = ["\xff", "*.\xff"]\n'
       b'value = "\xff"\n')
secret("value-as-kind", b'kind = "\xff"\n' + HOSTS + b'value = "\xff"\n')
secret("value-as-user", b'kind = "basic"\nuser = "\xff"\n' + HOSTS +
       b'value = "x:y"\n')
secret("value-as-header", b'kind = "header"\nheader = "\xff"\n' + HOSTS +
       b'value = "\xff"\n')
secret("header-forbidden", b'kind = "header"\nheader = "Proxy-Authorization"\n'
       + HOSTS + b'value = "\xff"\n')
secret("value-number", b'kind = "bearer"\n' + HOSTS + b"value = 12345678\n")
secret("value-table", b'kind = "bearer"\n' + HOSTS + b"[value]\na = '\xff'\n")
secret("short", b'kind = "bearer"\n' + HOSTS + b'value = "\xff"\n', b"ab")
secret("newline-in-value", b'kind = "bearer"\n' + HOSTS +
       b'value = "\xff\\n"\n')
secret("missing-everything", b"# nothing\n")
secret("user-on-bearer", b'kind = "bearer"\nuser = "kyle"\nheader = "X-A"\n'
       + HOSTS + b'value = "\xff"\n')
secret("hosts-empty", b'kind = "bearer"\nhosts = []\nvalue = "\xff"\n')
secret("hosts-not-strings", b'kind = "bearer"\nhosts = [1, "a.example"]\n'
       b'value = "\xff"\n')
secret("nul-key", b'kind = "bearer"\n' + HOSTS + b'"value\\u0000" = "\xff"\n')
secret("duplicate-value", b'kind = "bearer"\n' + HOSTS +
       b'value = "\xff"\nvalue = "\xff"\n')
secret("value-twice-too-long", b'kind = "bearer"\n' + HOSTS +
       b'value = "\xff\xff"\n', b"v" * 2100)
secret("hosts-257", b'kind = "bearer"\nhosts = [' +
       b",".join(b'"h%d.io"' % i for i in range(257)) +
       b']\nvalue = "\xff"\n')
secret("basic-longest", b'kind = "basic"\nuser = "' + b"u" * 256 +
       b'"\n' + HOSTS + b'value = "\xff"\n', b"p" * 2040)
