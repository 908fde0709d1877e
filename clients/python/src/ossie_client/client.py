"""The client: one class over the server's HTTP API (docs/server.md).

Answers come in the server's Arrow format (an Arrow IPC stream) and are
returned as pyarrow Tables; every error is an OssieError carrying the
problem document's stable code (OSSnnnn, docs/problems.md).
"""

from __future__ import annotations

import http.client
import json
import ssl
import warnings
from typing import Any, Iterable, Mapping, Optional, Sequence, Union
from urllib.parse import quote, urlsplit

import pyarrow as pa
import pyarrow.ipc

ARROW_STREAM = "application/vnd.apache.arrow.stream"

Dimension = Union[str, Mapping[str, Any]]


class OssieError(Exception):
    """A problem document (RFC 9457) the server answered with.

    ``code`` is the stable code (``OSS4003``…), ``status`` the HTTP status,
    ``problems`` the list of ``{code, path, message, severity}`` entries
    (each path points into the query body), ``request_id`` the id of the
    server's log lines for the request.
    """

    def __init__(self, status: int, code: str, title: str, detail: str = "",
                 problems: Optional[list] = None, request_id: str = ""):
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.problems = problems or []
        self.request_id = request_id
        lines = [f"{code or status}: {detail or title}"]
        for p in self.problems:
            where = f"{p.get('path')}: " if p.get("path") else ""
            lines.append(f"  {where}{p.get('code', '')} {p.get('message', '')}")
        super().__init__("\n".join(lines))


class TruncatedWarning(UserWarning):
    """The answer holds only the first rows: the server's row cap cut it."""


class _Response(http.client.HTTPResponse):
    """An HTTPResponse that keeps HTTP trailers instead of discarding them:
    the server sends Ossie-Truncated, Ossie-Row-Count and Ossie-Total as
    trailers when an answer does not fit its first 64 KiB buffer."""

    trailers: dict

    def _read_and_discard_trailer(self):  # called by http.client after the last chunk
        self.trailers = {}
        while True:
            line = self.fp.readline(65537)
            if not line or line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            self.trailers[name.strip().lower()] = value.strip()


class Client:
    """A client of one Ossie server.

    ``url`` is the server's base URL (``http://127.0.0.1:8080``), ``token``
    a bearer token (roles come from it, never from the request), ``timeout``
    seconds per request, ``namespace`` the Kubernetes namespace whose
    models to read (``/v1/namespaces/{namespace}/models/...``), if any.
    """

    def __init__(self, url: str, token: Optional[str] = None, *, timeout: float = 60.0,
                 namespace: Optional[str] = None, ssl_context: Optional[ssl.SSLContext] = None):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"url must be http://host:port or https://host:port, not {url!r}")
        self._scheme, self._netloc = parts.scheme, parts.netloc
        self._base = parts.path.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._namespace = namespace
        self._ssl = ssl_context

    # -- metadata -------------------------------------------------------

    def models(self) -> list:
        """The models the caller may read: a list of dicts with ``name``,
        ``version``, ``description`` and ``counts`` (GET /v1/models)."""
        return self._json("GET", "/v1/models")["models"]

    def model(self, model: str) -> dict:
        """One model's datasets, dimensions, metrics, descriptions and
        ai_context, as far as the caller's roles may see them."""
        return self._json("GET", self._model_path(model))

    def metrics(self, model: str) -> list:
        """The names of the model's metrics the caller may query."""
        return [m["name"] for m in self.model(model)["metrics"]]

    def dimensions(self, model: str) -> list:
        """The query names (``dataset.field``) of the model's dimensions."""
        return [d["name"] for ds in self.model(model)["datasets"] for d in ds["dimensions"]]

    # -- questions ------------------------------------------------------

    def query(self, model: str, metrics: Iterable[str] = (), dimensions: Iterable[Dimension] = (),
              filters: Iterable[Mapping[str, Any]] = (), order_by: Iterable[Any] = (),
              limit: Optional[int] = None, offset: Optional[int] = None,
              timezone: Optional[str] = None, total: bool = False) -> pa.Table:
        """Ask one question and return the answer as a pyarrow Table.

        ``dimensions`` are names (``"customers.region"``) or
        ``{"field": ..., "grain": "month"}``; ``filters`` are dicts as the
        HTTP API takes them (``{"field": "orders.channel", "op": "=",
        "values": ["shop"]}``, or ``"metric"`` instead of ``"field"``);
        ``order_by`` entries are ``{"key": name, "desc": bool}`` or names.
        Column types follow the Ossie datatypes (Integer int64, Float and
        Decimal float64, Date date32, DateTime timestamp[us], DateTimeTz
        timestamp[us, UTC], String utf8). The schema metadata holds
        ``ossie.model``, ``ossie.model_version``, ``ossie.truncated``,
        ``ossie.row_count`` and, with ``total=True``, ``ossie.total``. A
        truncated answer also raises a TruncatedWarning. ``.to_pandas()``
        gives a DataFrame (needs pandas).
        """
        body = _body(metrics, dimensions, filters, order_by, limit, offset, timezone)
        if total:
            body["total"] = True
        data, fields = self._request("POST", self._model_path(model) + "/query", body, accept=ARROW_STREAM)
        table = pa.ipc.open_stream(data).read_all()
        meta = dict(table.schema.metadata or {})
        for key in ("truncated", "row-count", "total"):
            value = fields.get("ossie-" + key)
            if value is not None:
                meta[("ossie." + key.replace("-", "_")).encode()] = value.encode()
        table = table.replace_schema_metadata(meta)
        if fields.get("ossie-truncated") == "true":
            warnings.warn(f"the answer was truncated at {fields.get('ossie-row-count')} rows by the server's row cap; "
                          "narrow the question or page with limit/offset", TruncatedWarning, stacklevel=2)
        return table

    def sql(self, model: str, metrics: Iterable[str] = (), dimensions: Iterable[Dimension] = (),
            filters: Iterable[Mapping[str, Any]] = (), order_by: Iterable[Any] = (),
            limit: Optional[int] = None, offset: Optional[int] = None,
            timezone: Optional[str] = None) -> str:
        """The SQL the server would run for the same question (not run)."""
        body = _body(metrics, dimensions, filters, order_by, limit, offset, timezone)
        return self._json("POST", self._model_path(model) + "/sql", body)["sql"]

    # -- transport ------------------------------------------------------

    def _model_path(self, model: str) -> str:
        if self._namespace:
            return f"/v1/namespaces/{quote(self._namespace, safe='')}/models/{quote(model, safe='')}"
        return f"/v1/models/{quote(model, safe='')}"

    def _json(self, method: str, path: str, body: Optional[dict] = None) -> Any:
        data, _ = self._request(method, path, body, accept="application/json")
        return json.loads(data)

    def _request(self, method: str, path: str, body: Optional[dict], accept: str):
        if self._scheme == "https":
            conn = http.client.HTTPSConnection(self._netloc, timeout=self._timeout, context=self._ssl)
        else:
            conn = http.client.HTTPConnection(self._netloc, timeout=self._timeout)
        conn.response_class = _Response
        headers = {"Accept": accept}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        try:
            conn.request(method, self._base + path, body=payload, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            fields = {k.lower(): v for k, v in resp.getheaders()}
            fields.update(getattr(resp, "trailers", {}))
        finally:
            conn.close()
        if resp.status >= 400:
            raise _problem(resp.status, data)
        return data, fields


def _body(metrics, dimensions, filters, order_by, limit, offset, timezone) -> dict:
    if isinstance(metrics, str) or isinstance(dimensions, str):
        raise TypeError("metrics and dimensions are lists of names, not one string")
    body: dict = {"metrics": list(metrics)}
    for key, value in (("dimensions", list(dimensions)), ("filters", [dict(f) for f in filters]),
                       ("order_by", list(order_by))):
        if value:
            body[key] = value
    for key, value in (("limit", limit), ("offset", offset), ("timezone", timezone)):
        if value is not None:
            body[key] = value
    return body


def _problem(status: int, data: bytes) -> OssieError:
    try:
        doc = json.loads(data)
    except ValueError:
        return OssieError(status, "", f"HTTP {status}", data[:200].decode("utf-8", "replace"))
    if not isinstance(doc, dict):
        return OssieError(status, "", f"HTTP {status}", str(doc)[:200])
    return OssieError(status, doc.get("code", ""), doc.get("title", ""), doc.get("detail", ""),
                      doc.get("problems"), doc.get("request_id", ""))
