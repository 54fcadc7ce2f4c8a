"""Integration fixtures: a REAL OpenAI-compatible inference server on 127.0.0.1 with a tiny model
built during the test session, and helpers that drive LabourCrew only through its command line.

What is built here (nothing is downloaded; only 127.0.0.1 is contacted):

* ``tiny_gguf`` -- a byte-level BPE tokenizer trained with ``tokenizers`` on the Act's own text
  (``data/statute/bn/*.html`` with the tags stripped, and a few reply shapes; not the role prompts, so
  rewording a prompt does not change the model), a random
  Llama-architecture model (``transformers`` ``LlamaConfig``: hidden 64, 2 layers, 4 heads) and
  both written to one GGUF file with the ``gguf`` package's ``GGUFWriter`` (llama tensors + the
  tokenizer metadata + a ChatML template). A few seconds; cached for the session.
* ``llm_server`` -- the prebuilt ``xllamacpp`` wheel (llama.cpp's native C++ server) serving that
  GGUF on a free port, ``/v1/chat/completions`` with ``response_format`` json_schema enforced
  as a grammar. Skipped, with the reason printed, only when the server cannot start on this
  machine (wheel not importable, or the process dies by a signal at start).
* ``FaultProxy`` -- a small HTTP proxy on 127.0.0.1 in front of the real server that passes
  traffic through (and counts it), drops the connection mid-reply, garbles the JSON body or the
  message content, strips ``response_format`` or caps ``max_tokens``.
* ``lc`` -- runs ``python -m labourcrew ...`` in a subprocess with a private Milvus Lite index
  (built by the CLI from a copy of the committed embedding cache) and a private runs folder.

The model is random, so under the enforced grammar it writes schema-valid nonsense. Its output
layer is nudged (one constant residual direction, see ``_BIASED``) so that greedy decoding closes
strings quickly and writes ``0`` for numbers: replies are then complete JSON instead of one string
running to the token limit, and the board's own checks (EEP, Citation Checker, Trust Gate) get to
judge them.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
MODEL_NAME = "tiny"
API_KEY = "lc-integration-test-key-0123456789"  # a fake key: must never appear in any output
STATUSES = {"TGLO", "DEGRADED", "UNDECIDED"}

# ------------------------------------------------------------------------------------- skip notes

_SKIPS: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print why the real-server tests were skipped (pytest -q alone hides skip reasons)."""
    for reason in dict.fromkeys(_SKIPS):
        terminalreporter.write_line(f"tests/integration skipped: {reason}", yellow=True)


def _skip(reason: str) -> None:
    _SKIPS.append(reason)
    print(f"SKIP: {reason}", file=sys.stderr)
    pytest.skip(reason)


# ------------------------------------------------------------------------------- the tiny model

_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
HIDDEN, LAYERS, HEADS, FFN, CTX_TRAIN, VOCAB = 64, 2, 4, 128, 32768, 3000
_BIASED = 6.0  # logit weight of the constant direction for string-closing tokens and "0"


def act_lines() -> list[str]:
    """Text lines of the Act's Bangla HTML files (scripts, styles and tags stripped)."""
    lines: list[str] = []
    for path in sorted((REPO / "data" / "statute" / "bn").glob("*.html")):
        raw = path.read_text(encoding="utf-8")
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        raw = html.unescape(re.sub(r"(?s)<[^>]+>", "\n", raw))
        lines += [s.strip() for s in raw.splitlines() if s.strip()]
    return lines


def _train_tokenizer(lines: list[str]) -> dict[str, Any]:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=_SPECIAL, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    shapes = ['{"claims": [{"text": "", "citations": [{"node_id": "2025:27(1)", "span": ""}], '
              '"confidence": 0.5, "challenge_to": null}]}'] * 20
    # Not the prompts: the model must not change when a prompt's wording does.
    tok.train_from_iterator(lines + shapes, trainer)
    return json.loads(tok.to_str())


def build_tiny_gguf(out: Path, seed: int = 0) -> Path:
    """Train the tokenizer, make the random Llama model and write both to ``out`` (GGUF, F32)."""
    import gguf
    import numpy as np
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    lines = act_lines()
    assert len(lines) > 1000, "the Act's HTML text is missing"
    tk = _train_tokenizer(lines)
    vocab: dict[str, int] = tk["model"]["vocab"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in tk["model"]["merges"]]
    tokens = [""] * len(vocab)
    for text, idx in vocab.items():
        tokens[idx] = text
    for added in tk["added_tokens"]:
        tokens[added["id"]] = added["content"]
    n_vocab = len(tokens)

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=n_vocab, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=HEADS, max_position_embeddings=CTX_TRAIN,
        rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False,
    )
    with torch.no_grad():
        sd = {k: v.float().numpy().copy() for k, v in LlamaForCausalLM(cfg).state_dict().items()}

    # The nudge: every embedding carries +0.2 on dimension 0 (the residual stream keeps it), and
    # only string-closing tokens and "0" read that dimension in the output layer.
    rng = np.random.default_rng(seed)
    emb = sd["model.embed_tokens.weight"]
    emb[:, 0] = 0.2
    head = rng.standard_normal(sd["lm_head.weight"].shape).astype(np.float32)
    head[:, 0] = 0.0
    nudged = [i for i, t in enumerate(tokens) if '"' in t] + [vocab["0"]]
    head[nudged, 0] = _BIASED

    def permute(w: np.ndarray) -> np.ndarray:  # HF rotate-half layout -> GGUF's (as convert_hf_to_gguf)
        return w.reshape(HEADS, 2, w.shape[0] // HEADS // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    tmp = out.with_suffix(".part")
    w = gguf.GGUFWriter(str(tmp), "llama")
    w.add_name("labourcrew-tiny-random")
    w.add_context_length(CTX_TRAIN)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_rope_dimension_count(HIDDEN // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t in _SPECIAL else gguf.TokenType.NORMAL for t in tokens])
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|endoftext|>"])
    w.add_eos_token_id(vocab["<|im_end|>"])
    w.add_add_bos_token(False)
    w.add_chat_template(_CHATML)
    w.add_tensor("token_embd.weight", emb)
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        w.add_tensor(f"blk.{i}.attn_norm.weight", sd[p + "input_layernorm.weight"])
        w.add_tensor(f"blk.{i}.attn_q.weight", permute(sd[p + "self_attn.q_proj.weight"]))
        w.add_tensor(f"blk.{i}.attn_k.weight", permute(sd[p + "self_attn.k_proj.weight"]))
        w.add_tensor(f"blk.{i}.attn_v.weight", sd[p + "self_attn.v_proj.weight"])
        w.add_tensor(f"blk.{i}.attn_output.weight", sd[p + "self_attn.o_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_norm.weight", sd[p + "post_attention_layernorm.weight"])
        w.add_tensor(f"blk.{i}.ffn_gate.weight", sd[p + "mlp.gate_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_up.weight", sd[p + "mlp.up_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_down.weight", sd[p + "mlp.down_proj.weight"])
    w.add_tensor("output_norm.weight", sd["model.norm.weight"])
    w.add_tensor("output.weight", head)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.replace(out)
    return out


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random model as a GGUF file, built once per session (a few seconds)."""
    folder = tmp_path_factory.mktemp("tiny_model")
    started = time.perf_counter()
    with pytest.MonkeyPatch.context() as mp:  # belt and braces: no model hub, ever
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        path = build_tiny_gguf(folder / "labourcrew-tiny.gguf")
    print(f"tiny GGUF built in {time.perf_counter() - started:.1f} s: {path.stat().st_size} bytes", file=sys.stderr)
    return path


# ------------------------------------------------------------------------------------ the server

_SERVER = r"""
import json, signal, sys, time
cfg = json.loads(sys.argv[1])
import xllamacpp as xlc
p = xlc.CommonParams()
p.model.path = cfg["model"]
p.model_alias = {cfg["alias"]}
p.hostnames = ["127.0.0.1"]
p.port = cfg["port"]
p.n_ctx = cfg["n_ctx"]
p.n_parallel = cfg["n_parallel"]
p.n_predict = cfg["n_predict"]
p.cpuparams.n_threads = cfg["threads"]
p.cpuparams_batch.n_threads = cfg["threads"]
p.warmup = False
p.sampling.seed = 7
server = xlc.Server(p)
print("LISTENING", server.listening_address, flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    time.sleep(3600)
"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LLMServer:
    """A running xllamacpp server process."""

    proc: subprocess.Popen
    port: int
    log: Path
    model: str = MODEL_NAME

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _log_tail(path: Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


@pytest.fixture(scope="session")
def llm_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LLMServer]:
    """xllamacpp's llama.cpp server with the tiny model on 127.0.0.1:<free port>."""
    probe = subprocess.run([PY, "-c", "import xllamacpp"], capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or [f"exit code {probe.returncode}"])[-1]
        _skip(f"the real LLM server cannot start: `import xllamacpp` failed: {last}")
    tiny_gguf: Path = request.getfixturevalue("tiny_gguf")  # built only once the wheel imports
    log = tmp_path_factory.mktemp("llm_server") / "server.log"
    port = free_port()
    cfg = {"model": str(tiny_gguf), "alias": MODEL_NAME, "port": port, "n_ctx": 32768, "n_parallel": 2,
           "n_predict": 256, "threads": 2}
    with log.open("wb") as sink:
        proc = subprocess.Popen([PY, "-c", _SERVER, json.dumps(cfg)], stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    server = LLMServer(proc=proc, port=port, log=log)
    try:
        import httpx

        deadline = time.monotonic() + 60
        while True:
            code = proc.poll()
            if code is not None:
                if code < 0:  # killed by a signal (e.g. SIGILL: the wheel's CPU build does not run here)
                    _skip(f"the real LLM server cannot start: it died by signal {-code}:\n{_log_tail(log)}")
                pytest.fail(f"the LLM server exited with code {code} at start:\n{_log_tail(log)}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the LLM server did not become healthy within 60 s:\n{_log_tail(log)}")
            time.sleep(0.1)
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


# ------------------------------------------------------------------------------------ the proxy


def _read_http_message(sock: socket.socket, until_close: bool) -> tuple[bytes, dict[str, str], bytes] | None:
    """Read one HTTP/1.1 message: (start line + headers as bytes, lower-cased headers, body)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    headers: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        need = int(headers["content-length"])
        while len(body) < need:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        body = body[:need]
    elif until_close:
        while chunk := sock.recv(65536):
            body += chunk
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = _dechunk(body)
            headers.pop("transfer-encoding")
    return head, headers, body


def _dechunk(data: bytes) -> bytes:
    out, rest = b"", data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


def _with_headers(head: bytes, headers: dict[str, str], body: bytes) -> bytes:
    start = head.split(b"\r\n", 1)[0]
    keep = {k: v for k, v in headers.items() if k not in ("content-length", "connection", "transfer-encoding")}
    keep["content-length"] = str(len(body))
    keep["connection"] = "close"
    return start + b"\r\n" + "".join(f"{k}: {v}\r\n" for k, v in keep.items()).encode("latin-1") + b"\r\n" + body


def garble_body(body: bytes) -> bytes:
    """The reply's JSON body corrupted but still UTF-8: cut short, quotes mangled, junk appended."""
    text = body.decode("utf-8", errors="replace")
    return (text[: len(text) * 2 // 3].replace('":', "'=") + " <<garbled>> ").encode("utf-8")


def garble_bytes(body: bytes) -> bytes:
    """The reply's body with bytes that are not UTF-8 spliced into its middle."""
    half = len(body) // 2
    return body[:half] + b"\x00\xff\xfe<<garbled>>" + body[half:]


def garble_content(body: bytes) -> bytes:
    """The reply's JSON stays valid, but ``choices[0].message.content`` is mangled bytes-as-text."""
    data = json.loads(body)
    for choice in data.get("choices", []):
        msg = choice.get("message") or {}
        text = msg.get("content") or ""
        msg["content"] = text[: len(text) // 2].replace('"', "»").replace(":", "") + "\ufffd\ufffd<<garbled>>"
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


@dataclass
class ProxyRecord:
    path: str
    status: int | None
    usage: dict[str, Any] | None
    finish_reason: str | None


@dataclass
class FaultProxy:
    """HTTP proxy on 127.0.0.1 in front of ``upstream_port``; one request per connection.

    Modes: ``pass`` (forward, record), ``drop`` (forward, then send the client half of the reply and
    close the connection), ``garble_body`` / ``garble_bytes`` / ``garble_content`` (corrupt the reply
    body as text, as bytes, or only the message content), ``strip_format``
    (remove ``response_format`` from chat requests), ``max_tokens=N`` (cap chat requests at N
    tokens, so the real server truncates). Every request is forwarded to the real server.
    """

    upstream_port: int
    mode: str = "pass"
    records: list[ProxyRecord] = field(default_factory=list)
    _sock: socket.socket | None = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def port(self) -> int:
        assert self._sock is not None
        return int(self._sock.getsockname()[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_records(self) -> list[ProxyRecord]:
        return [r for r in self.records if r.path.endswith("/chat/completions")]

    def start(self) -> FaultProxy:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        t = threading.Thread(target=self._accept_loop, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        if self._sock is not None:
            self._sock.close()

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                client, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(client,), daemon=True)
            t.start()

    def _rewrite_request(self, path: str, body: bytes) -> bytes:
        if not path.endswith("/chat/completions") or not body:
            return body
        data = json.loads(body)
        if self.mode == "strip_format":
            data.pop("response_format", None)
        elif self.mode.startswith("max_tokens="):
            data["max_tokens"] = int(self.mode.split("=", 1)[1])
        else:
            return body
        return json.dumps(data, ensure_ascii=False).encode("utf-8")

    def _serve(self, client: socket.socket) -> None:
        client.settimeout(120)
        try:
            req = _read_http_message(client, until_close=False)
            if req is None:
                return
            head, headers, body = req
            path = head.split(b" ")[1].decode("latin-1")
            body = self._rewrite_request(path, body)
            headers.pop("accept-encoding", None)  # keep replies uncompressed, so they can be read and garbled
            with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=120) as up:
                up.sendall(_with_headers(head, headers, body))
                resp = _read_http_message(up, until_close=True)
            if resp is None:
                return
            rhead, rheaders, rbody = resp
            status = int(rhead.split(b" ")[1])
            usage = finish = None
            try:
                data = json.loads(rbody)
                usage = data.get("usage")
                finish = (data.get("choices") or [{}])[0].get("finish_reason")
            except (ValueError, AttributeError):
                pass
            self.records.append(ProxyRecord(path=path, status=status, usage=usage, finish_reason=finish))
            chat = path.endswith("/chat/completions") and status == 200
            if chat and self.mode == "garble_body":
                rbody = garble_body(rbody)
            elif chat and self.mode == "garble_bytes":
                rbody = garble_bytes(rbody)
            elif chat and self.mode == "garble_content":
                rbody = garble_content(rbody)
            out = _with_headers(rhead, rheaders, rbody)
            if chat and self.mode == "drop":
                cut = out.index(b"\r\n\r\n") + 4 + len(rbody) // 2
                client.sendall(out[:cut])  # headers promise the whole body; half comes, then EOF
                return
            client.sendall(out)
        except OSError:
            pass
        finally:
            try:
                client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            client.close()


@pytest.fixture
def proxy(llm_server: LLMServer) -> Iterator[Callable[[str], FaultProxy]]:
    """Factory: ``proxy("drop")`` starts a FaultProxy in front of the real server (stopped after)."""
    started: list[FaultProxy] = []

    def make(mode: str) -> FaultProxy:
        p = FaultProxy(upstream_port=llm_server.port, mode=mode).start()
        started.append(p)
        return p

    yield make
    for p in started:
        p.stop()


# ----------------------------------------------------------------------------------- the CLI


@dataclass
class CLIResult:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.stdout)

    def describe(self) -> str:
        return (f"$ labourcrew {' '.join(self.args)}\nexit {self.returncode} after {self.seconds:.1f} s\n"
                f"--- stderr (tail)\n{self.stderr[-3000:]}\n--- stdout (head)\n{self.stdout[:1500]}")


@dataclass
class LabourCrewCLI:
    """``python -m labourcrew`` in a subprocess with a clean LABOURCREW_* environment."""

    base_env: dict[str, str]
    api_key: str = API_KEY

    def env(self, **overrides: str) -> dict[str, str]:
        return {**self.base_env, **overrides}

    def __call__(self, *args: str, env: dict[str, str] | None = None, timeout: float = 240) -> CLIResult:
        started = time.perf_counter()
        proc = subprocess.run([PY, "-m", "labourcrew", *args], cwd=REPO, env=env or self.base_env,
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return CLIResult(list(args), proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started)

    def openai_env(self, base_url: str, **overrides: str) -> dict[str, str]:
        """Environment for the openai backend at ``base_url`` (preset ``openai``, model ``tiny``)."""
        return self.env(**{
            "LABOURCREW_PRESET": "openai",
            "LABOURCREW_LLM__BASE_URL": base_url,
            "LABOURCREW_LLM__MODEL": MODEL_NAME,
            "LABOURCREW_LLM__API_KEY": self.api_key,
            "LABOURCREW_LLM__TIMEOUT_S": "30",
            **overrides,
        })


def _clean_environ() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("LABOURCREW_", "OPENAI_"))}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


@pytest.fixture(scope="session")
def lc(tmp_path_factory: pytest.TempPathFactory) -> LabourCrewCLI:
    """The CLI with a private index (built by ``index build`` from a copy of the embedding cache)."""
    root = tmp_path_factory.mktemp("labourcrew")
    cache = root / "embed_cache"
    shutil.copytree(REPO / "data" / "index" / "embed_cache", cache)
    cli = LabourCrewCLI(base_env={
        **_clean_environ(),
        "LABOURCREW_INDEX__URI": str(root / "index.db"),
        "LABOURCREW_INDEX__EMBED_CACHE_DIR": str(cache),
        "LABOURCREW_RUNS_DIR": str(root / "runs"),
    })
    built = cli("index", "build", "--uri", str(root / "index.db"), timeout=300)
    assert built.returncode == 0, built.describe()
    return cli


# ------------------------------------------------------------------------- statute verification


def norm(text: str) -> str:
    """NFC, zero-width characters removed, whitespace collapsed."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"[\u200b\u200c\u200d\u2060\ufeff]", "", text)
    return " ".join(text.split())


@dataclass
class StatuteTexts:
    """Unit texts by node id, fetched through ``statute show <section> --version V --json``."""

    cli: LabourCrewCLI
    _sections: dict[tuple[str, str], dict[str, str] | None] = field(default_factory=dict)

    def units(self, version: str, section: str) -> dict[str, str] | None:
        key = (version, section)
        if key not in self._sections:
            res = self.cli("statute", "show", section, "--version", version, "--json", timeout=120)
            if res.returncode == 0:
                payload = res.json()
                self._sections[key] = {u["node_id"]: u["text"] for u in payload["units"]}
            elif res.returncode == 2:  # unknown section: exit 2, one line
                self._sections[key] = None
            else:
                raise AssertionError(res.describe())
        return self._sections[key]

    def text_of(self, node_id: str, section: str | None = None) -> str | None:
        version, _, local = node_id.partition(":")
        head = re.match(r"[0-9]+[A-Z]?", local)
        sec = section or (head.group(0) if head else None)
        if not version or not sec:
            return None
        units = self.units(version, sec)
        return None if units is None else units.get(node_id)

    def problems(self, result: dict[str, Any]) -> list[str]:
        """Problems of the released (accepted) claims of an ``ask --json`` result: a cited node that is
        not in the statute, or a span that is not verbatim (normalised) in its cited unit's text."""
        problems = []
        for claim in result.get("claims") or []:
            if not claim.get("accepted"):
                continue
            if not claim.get("evidence"):
                problems.append(f"{claim['claim_id']}: released without evidence")
            for ev in claim.get("evidence") or []:
                text = self.text_of(ev["node_id"], ev.get("section"))
                if text is None:
                    problems.append(f"{claim['claim_id']}: cites {ev['node_id']!r}, which is not in the statute")
                elif not norm(ev["span"]) or norm(ev["span"]) not in norm(text):
                    problems.append(f"{claim['claim_id']}: span {ev['span'][:80]!r} is not verbatim in {ev['node_id']}")
        return problems


@pytest.fixture(scope="session")
def statute(lc: LabourCrewCLI) -> StatuteTexts:
    """Unit texts of the statute as ``statute show --json`` prints them; ``.problems(result)``."""
    return StatuteTexts(lc)
