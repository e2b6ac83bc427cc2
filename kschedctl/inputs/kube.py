"""The live cluster: read every object the scheduler reads, through the official ``kubernetes`` client.

This is the only module that imports ``kubernetes``. It only ever sends ``GET`` requests (list
calls, nothing else): kschedctl never creates, patches, binds or deletes anything.

How it reads, and why:

- Configuration as kubectl finds it: ``--kubeconfig FILE``, else ``KUBECONFIG`` (a list of
  files), else ``~/.kube/config``, else the in-cluster service account of a pod. The client's
  kubeconfig loader does the work (auth providers, exec plugins, client certificates); it is
  told never to write the file back.
- Every kind of ``KINDS``, for all namespaces (or the namespaces asked for), in pages
  (``limit``/``continue``), with a timeout per request and a bounded retry with backoff on
  transient failures (HTTP 429 and 5xx, ``Retry-After`` honoured; connection reset or read
  timeout). An expired ``continue`` token (410 Gone) restarts that kind's list once.
- Retries are this module's, on top of the client's urllib3 pool (told not to retry, with
  ``Retry(total=0)``): urllib3's ``Retry`` counts connection failures without knowing whether
  the server ever answered, so a kubeconfig pointing at the wrong address would be retried with
  backoff before failing; here a failure before the first answer is reported at once, and only
  failures after the cluster answered are retried (HTTP 429/5xx with ``Retry-After``, resets,
  read timeouts). The wait between attempts is injectable, so the tests do not sleep.
- Pods are listed with the field selector kube-scheduler's own informer uses
  (``status.phase!=Succeeded,status.phase!=Failed``): finished pods are not part of its
  cache, so they are not part of ours.
- Responses are decoded with ``json`` straight from the body: the client's model classes
  would take minutes for 50,000 pods, and the fixture path works on plain dicts anyway.
- Each object is cleaned by ``strip_object`` (the same function ``kschedctl snapshot``
  uses), then handed to ``ClusterState.from_documents`` exactly like objects read from files:
  a live run and a run on its snapshot see the very same dicts.

Failures are ``ClusterAccessError`` (exit 2), one sentence each: no kubeconfig, an unknown
context, an unreachable server, a TLS failure, 401 (credentials rejected), 403 (names the kind
and the verb). Nodes and pods are required; without any other kind the scheduler can still
run, so a 403 (or a kind the server does not serve) there becomes a warning saying what is
missing, and the read carries on. The CRDs of out-of-tree plugins (PodGroup, ElasticQuota,
NodeResourceTopology, AppGroup, NetworkTopology) are skipped quietly when not installed (404).

Credentials never reach a message: every text this module produces passes through a redactor
that knows the tokens, passwords and keys of the kubeconfig in use, and server addresses are
shown without user information.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

import yaml

from kschedctl.errors import ClusterAccessError
from kschedctl.inputs.cluster import ClusterState
from kschedctl.inputs.kinds import KIND_BY_NAME, KINDS, Kind
from kschedctl.inputs.loader import Document, gc_paused
from kschedctl.inputs.redact import _Redactor, _safe_url
from kschedctl.inputs.strip import LAST_APPLIED_ANNOTATION, strip_object, strip_objects

__all__ = [
    "Kind",
    "KINDS",
    "KIND_BY_NAME",
    "ProgressCallback",
    "LiveObjects",
    "KubeClient",
    "HttpError",
    "Unreachable",
    "Transient",
    "ListReader",
    "connect",
    "read_objects",
    "read_cluster",
    "WatchStream",
    "strip_object",
    "strip_objects",
    "POD_FIELD_SELECTOR",
    "LAST_APPLIED_ANNOTATION",
]

#: ``on_progress(kind, count)``: called when a kind's list starts (count 0) and after each page
#: (count = objects of that kind read so far). May be called from worker threads, never two
#: calls at once.
ProgressCallback = Callable[[str, int], None]

#: The pods kube-scheduler's informer lists (pkg/scheduler/scheduler.go newPodInformer).
POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"

DEFAULT_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_PAGE_SIZE = 500
DEFAULT_RETRIES = 4
DEFAULT_WORKERS = 4
_MAX_BACKOFF = 8.0
_MAX_RETRY_AFTER = 30.0
_SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


# --------------------------------------------------------------------------- configuration


@dataclass
class _Source:
    """Where the connection settings came from, for messages."""

    description: str  # "kubeconfig ~/.kube/config, context kind-kind" / "in-cluster service account"
    context: str | None
    files: list[str] = field(default_factory=list)


def _load_configuration(kubeconfig: str | os.PathLike[str] | None, context: str | None,
                        env: Mapping[str, str], redact: _Redactor) -> tuple[Any, _Source]:
    from kubernetes import client, config  # noqa: F401  (the one module allowed to)
    from kubernetes.config.config_exception import ConfigException

    files, origin = _kubeconfig_files(kubeconfig, env)
    if not files:
        if context:
            raise ClusterAccessError(f"--context {context}: no kubeconfig found ({origin})")
        return _load_in_cluster(env, origin, redact)

    merged = _read_kubeconfigs(files, redact)
    contexts = [c.get("name") for c in merged.get("contexts") or () if isinstance(c, dict)]
    shown = ", ".join(str(c) for c in contexts) or "none"
    where = "kubeconfig " + os.pathsep.join(files)
    if context:
        if context not in contexts:
            raise ClusterAccessError(f'{where}: no context named "{context}" (contexts: {shown})')
        active = context
    else:
        active = merged.get("current-context")
        if not active:
            raise ClusterAccessError(f"{where} has no current-context: choose one with --context "
                                     f"(contexts: {shown})")
        if active not in contexts:
            raise ClusterAccessError(f'{where}: current-context "{active}" is not one of its contexts '
                                     f"(contexts: {shown})")

    cfg = client.Configuration()
    try:
        config.load_kube_config(config_file=os.pathsep.join(files), context=active,
                                client_configuration=cfg, persist_config=False)
    except ConfigException as exc:
        raise ClusterAccessError(f'{where}, context "{active}": {_config_message(exc, redact)}') from None
    except (OSError, ValueError, TypeError, KeyError, yaml.YAMLError) as exc:
        raise ClusterAccessError(f'{where}, context "{active}": cannot use it: '
                                 f"{_config_message(exc, redact)}") from None
    _remember_config_secrets(cfg, redact)
    return cfg, _Source(f'{where}, context "{active}"', active, files)


def _kubeconfig_files(kubeconfig: str | os.PathLike[str] | None, env: Mapping[str, str]) -> tuple[list[str], str]:
    """The kubeconfig files to merge (as kubectl would) and a phrase saying where we looked."""
    if kubeconfig is not None and str(kubeconfig) != "":
        path = os.path.expanduser(os.fspath(kubeconfig))
        if not os.path.isfile(path):
            raise ClusterAccessError(f"--kubeconfig {path}: no such file")
        return [path], f"--kubeconfig {path}"
    listed = env.get("KUBECONFIG", "")
    if listed:
        paths = [os.path.expanduser(p) for p in listed.split(os.pathsep) if p]
        existing = [p for p in paths if os.path.isfile(p)]
        if not existing:
            raise ClusterAccessError(f"KUBECONFIG={listed}: none of these files exists")
        return existing, f"KUBECONFIG={listed}"
    home = env.get("HOME") or os.path.expanduser("~")
    default = os.path.join(home, ".kube", "config")
    if os.path.isfile(default):
        return [default], default
    return [], f"KUBECONFIG is not set and {default} does not exist"


def _read_kubeconfigs(files: list[str], redact: _Redactor) -> dict:
    """The merged kubeconfig (first file wins, as kubectl merges), secrets noted for redaction."""
    merged: dict = {"contexts": [], "clusters": [], "users": []}
    seen: dict[str, set[str]] = {"contexts": set(), "clusters": set(), "users": set()}
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f)
        except OSError as exc:
            raise ClusterAccessError(f"kubeconfig {path}: cannot read: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f":{mark.line + 1}" if mark is not None else ""
            raise ClusterAccessError(f"kubeconfig {path}{line}: not valid YAML") from None
        if data is None:
            continue
        if not isinstance(data, dict):
            raise ClusterAccessError(f"kubeconfig {path}: not a kubeconfig (expected a mapping)")
        for section in ("users",):
            redact.add_tree(data.get(section))
        for section in ("contexts", "clusters", "users"):
            for item in data.get(section) or ():
                if isinstance(item, dict) and item.get("name") not in seen[section]:
                    seen[section].add(item.get("name"))
                    merged[section].append(item)
        if not merged.get("current-context") and data.get("current-context"):
            merged["current-context"] = data["current-context"]
    return merged


def _load_in_cluster(env: Mapping[str, str], origin: str, redact: _Redactor) -> tuple[Any, _Source]:
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    if not env.get("KUBERNETES_SERVICE_HOST"):
        raise ClusterAccessError(
            f"no kubeconfig found: {origin}, and kschedctl is not running in a pod with a service "
            "account. Give --kubeconfig FILE, set KUBECONFIG, or read a snapshot with --cluster FILE")
    token_file = os.path.join(_SERVICE_ACCOUNT_DIR, "token")
    try:
        with open(token_file, encoding="utf-8") as f:
            redact.add(f.read())
    except OSError:
        pass
    cfg = client.Configuration()
    try:
        config.load_incluster_config(client_configuration=cfg)
    except ConfigException as exc:
        raise ClusterAccessError(f"in-cluster service account: {_config_message(exc, redact)}") from None
    _remember_config_secrets(cfg, redact)
    return cfg, _Source("in-cluster service account", None)


def _remember_config_secrets(cfg: Any, redact: _Redactor) -> None:
    for value in (getattr(cfg, "api_key", None) or {}).values():
        redact.add(value)
    redact.add(getattr(cfg, "password", None))


def _config_message(exc: BaseException, redact: _Redactor) -> str:
    text = str(exc) or type(exc).__name__
    # The client's messages may quote whole kubeconfig entries (dicts with tokens in them):
    # keep the sentence, drop the quoted structure.
    text = re.sub(r"\{.*\}", "{...}", text, flags=re.S)
    text = redact(text)
    return " ".join(text.split())


# --------------------------------------------------------------------------- HTTP


class HttpError(Exception):
    """A non-2xx answer: status, reason phrase and the server's own message."""

    def __init__(self, status: int, reason: str, message: str, body: dict | None) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message
        self.body = body


class Unreachable(Exception):
    """The server could not be reached (refused, unknown host, connect timeout, TLS failure)."""


class _Cancelled(Exception):
    """Another kind's failure stopped this one."""


@dataclass
class LiveObjects:
    """What a live read gives: stripped objects by kind (in ``KINDS`` order) and warnings."""

    objects: dict[str, list[dict]]
    warnings: list[str]
    source: str
    context: str | None
    server: str
    namespaces: list[str] | None = None
    #: The resourceVersion of each kind's list (read across all namespaces): a watch starts there.
    resource_versions: dict[str, str] = field(default_factory=dict)

    def all(self) -> list[dict]:
        """Every object, kinds in ``KINDS`` order."""
        out: list[dict] = []
        for kind in KINDS:
            out.extend(self.objects.get(kind.kind, ()))
        return out

    def counts(self) -> dict[str, int]:
        """Objects read per kind (kinds with none left out)."""
        return {k: len(v) for k, v in self.objects.items() if v}


class KubeClient:
    """A read-only connection to one API server. ``get_json`` is the only way out, and it only GETs."""

    def __init__(self, configuration: Any, source: _Source, redact: _Redactor, *,
                 timeout: float = DEFAULT_TIMEOUT, retries: int = DEFAULT_RETRIES,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from urllib3.util.retry import Retry

        from kschedctl import __version__
        from kubernetes import client

        # Retries are ours (bounded, with backoff, only for transient failures): urllib3's own
        # would silently retry a refused connection three times.
        configuration.retries = Retry(total=0, connect=0, read=0, redirect=0, status=0, other=0)
        if self.insecure_configuration(configuration):
            # One warning of ours (insecure_warning) instead of urllib3's on every request.
            import urllib3

            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        self._api = client.ApiClient(configuration)
        self._api.user_agent = f"kschedctl/{__version__}"
        self.configuration = configuration
        self.source = source
        self.redact = redact
        self.server = _safe_url(configuration.host or "")
        self.timeout = (min(DEFAULT_CONNECT_TIMEOUT, timeout), timeout)
        self.retries = max(0, retries)
        self._sleep = sleep
        self._reached = False  # a first request got an answer: later connect errors are transient
        self._lock = threading.Lock()

    @staticmethod
    def insecure_configuration(configuration: Any) -> bool:
        return str(configuration.host or "").startswith("https:") and not getattr(configuration, "verify_ssl", True)

    @property
    def insecure(self) -> bool:
        """TLS verification is off (the kubeconfig's ``insecure-skip-tls-verify: true``, as kubectl honours it)."""
        return self.insecure_configuration(self.configuration)

    def insecure_warning(self) -> str:
        return (f"TLS verification is off for {self.server} (insecure-skip-tls-verify in "
                f"{self.source.description}): the server's identity was not checked")

    def close(self) -> None:
        """Release the connection pool."""
        try:
            self._api.rest_client.close()
        except Exception:  # closing is best effort
            pass

    def get_json(self, path: str, query: list[tuple[str, str]] | None = None) -> dict:
        """``GET path?query`` as a decoded JSON object, retrying transient failures.

        Raises ``HttpError`` for a final non-2xx answer and ``Unreachable`` when the server
        cannot be reached.
        """
        attempt = 0
        while True:
            try:
                return self._get_once(path, query or [])
            except HttpError as exc:
                if not (exc.status == 429 or exc.status >= 500) or attempt >= self.retries:
                    raise
                delay = _retry_after(exc) or self._backoff(attempt)
            except Transient as exc:
                if attempt >= self.retries:
                    raise Unreachable(str(exc)) from None
                delay = self._backoff(attempt)
            attempt += 1
            self._sleep(delay)

    def _backoff(self, attempt: int) -> float:
        base = min(_MAX_BACKOFF, 0.5 * (2 ** attempt))
        return base * (0.75 + 0.5 * random.random())

    def _get_once(self, path: str, query: list[tuple[str, str]]) -> dict:
        import urllib3.exceptions as u3

        from kubernetes.client.exceptions import ApiException

        method, url, headers, _body, _post = self._api.param_serialize(
            "GET", path, query_params=list(query),
            header_params={"Accept": "application/json", "Accept-Encoding": "gzip"},
            auth_settings=["BearerToken"])
        if method != "GET":  # pragma: no cover - a guard: this module never writes
            raise AssertionError("kschedctl only ever sends GET requests")
        try:
            response = self._api.call_api(method, url, header_params=headers, _request_timeout=self.timeout)
            data = response.read()
        except ApiException as exc:  # the client wraps TLS failures this way (status 0)
            raise Unreachable(self._tls_message(str(exc.reason or exc))) from None
        except u3.MaxRetryError as exc:
            reason = exc.reason
            if isinstance(reason, u3.SSLError):
                raise Unreachable(self._tls_message(str(reason))) from None
            if isinstance(reason, (u3.ProtocolError, u3.ReadTimeoutError)) or (
                    self._reached and isinstance(reason, (u3.NewConnectionError, u3.ConnectTimeoutError))):
                raise Transient(_describe_network_error(reason)) from None
            raise Unreachable(_describe_network_error(reason)) from None
        except (u3.ProtocolError, u3.ReadTimeoutError, u3.DecodeError) as exc:
            raise Transient(_describe_network_error(exc)) from None
        except (u3.NewConnectionError, u3.ConnectTimeoutError) as exc:
            if self._reached:
                raise Transient(_describe_network_error(exc)) from None
            raise Unreachable(_describe_network_error(exc)) from None
        except u3.SSLError as exc:
            raise Unreachable(self._tls_message(str(exc))) from None
        except u3.HTTPError as exc:
            raise Unreachable(_describe_network_error(exc)) from None
        except OSError as exc:
            raise Transient(_describe_network_error(exc)) from None
        self._reached = True
        status = response.status
        if not 200 <= status <= 299:
            body = _json_or_none(data)
            message = ""
            if isinstance(body, dict):
                message = str(body.get("message") or "")
            if not message:
                message = (data or b"")[:200].decode("utf-8", "replace").strip()
            err = HttpError(status, response.reason or "", self.redact(message), body if isinstance(body, dict) else None)
            err.retry_after = response.headers.get("Retry-After") if response.headers else None  # type: ignore[attr-defined]
            raise err
        try:
            decoded = json.loads(data)
        except ValueError:
            raise ClusterAccessError(
                f"{self.server}{path}: the answer is not JSON: is {self.source.description} pointing "
                f"at a Kubernetes API server?") from None
        if not isinstance(decoded, dict):
            raise ClusterAccessError(f"{self.server}{path}: the answer is not a JSON object")
        return decoded

    def watch(self, path: str, query: list[tuple[str, str]], read_timeout: float) -> "WatchStream":
        """``GET path?watch=1&...`` as a stream of decoded events (one JSON object per line).

        Raises ``HttpError`` for an error answer, ``Unreachable`` when the server cannot be
        reached; a connection dropped later ends the stream's iteration with ``Transient``.
        """
        import urllib3.exceptions as u3

        from kubernetes.client.exceptions import ApiException

        method, url, headers, _body, _post = self._api.param_serialize(
            "GET", path, query_params=[("watch", "1"), *query],
            header_params={"Accept": "application/json"}, auth_settings=["BearerToken"])
        if method != "GET":  # pragma: no cover - a guard: this module never writes
            raise AssertionError("kschedctl only ever sends GET requests")
        try:
            response = self._api.call_api(method, url, header_params=headers,
                                          _request_timeout=(self.timeout[0], read_timeout))
        except ApiException as exc:
            raise Unreachable(self._tls_message(str(exc.reason or exc))) from None
        except (u3.MaxRetryError, u3.HTTPError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise Transient(_describe_network_error(reason)) from None
        raw = response.response
        if not 200 <= response.status <= 299:
            data = response.read()
            body = _json_or_none(data)
            message = str(body.get("message") or "") if isinstance(body, dict) else ""
            raise HttpError(response.status, response.reason or "", self.redact(message),
                             body if isinstance(body, dict) else None)
        self._reached = True
        return WatchStream(raw)

    def _tls_message(self, text: str) -> str:
        text = " ".join(self.redact(text).split())
        if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
            return "TLS: the server's certificate could not be verified (certificate-authority of the kubeconfig?)"
        return f"TLS failure ({text[:200]})"


class Transient(Exception):
    """A failure worth retrying: connection reset, read timeout, connection refused after a first success."""


class WatchStream:
    """The events of one watch request, in order; ``close()`` (from any thread) ends it."""

    def __init__(self, response: Any) -> None:
        self._response = response
        self.closed = False

    def __iter__(self) -> Iterator[dict]:
        import urllib3.exceptions as u3

        try:
            for line in self._response:
                line = line.strip()
                if not line:
                    continue
                event = _json_or_none(line)
                if not isinstance(event, dict):
                    raise Transient("the watch sent a line that is not a JSON object")
                yield event
        except (u3.ProtocolError, u3.ReadTimeoutError, u3.DecodeError, OSError, ValueError) as exc:
            if not self.closed:
                raise Transient(_describe_network_error(exc)) from None
        finally:
            self._release()

    def close(self) -> None:
        self.closed = True
        try:
            self._response.shutdown()  # wakes a read blocked in another thread
        except Exception:  # closing is best effort
            pass
        self._release()

    def _release(self) -> None:
        try:
            self._response.release_conn()
        except Exception:  # best effort
            pass


def _retry_after(exc: HttpError) -> float | None:
    value = getattr(exc, "retry_after", None)
    if not value:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, min(_MAX_RETRY_AFTER, seconds))


def _json_or_none(data: bytes | None) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _describe_network_error(exc: BaseException) -> str:
    import urllib3.exceptions as u3

    if isinstance(exc, u3.NameResolutionError):
        return "the host name does not resolve"
    # NewConnectionError is a subclass of ConnectTimeoutError (urllib3's history): test it first.
    if isinstance(exc, u3.NewConnectionError):
        text = str(exc).lower()
        if "refused" in text:
            return "connection refused"
        if "unreachable" in text:
            return "network is unreachable"
        if "name or service not known" in text or "nodename nor servname" in text or "resolution" in text:
            return "the host name does not resolve"
        return "cannot connect"
    if isinstance(exc, u3.ConnectTimeoutError):
        return "the connection timed out"
    if isinstance(exc, u3.ReadTimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, u3.ProxyError):
        return "the proxy failed"
    if isinstance(exc, u3.ProtocolError):
        return "the connection was reset"
    if isinstance(exc, OSError):
        return (exc.strerror or type(exc).__name__).lower()
    return type(exc).__name__


# --------------------------------------------------------------------------- reading


def connect(kubeconfig: str | os.PathLike[str] | None = None, context: str | None = None, *,
            timeout: float = DEFAULT_TIMEOUT, retries: int = DEFAULT_RETRIES,
            env: Mapping[str, str] | None = None, sleep: Callable[[float], None] = time.sleep) -> KubeClient:
    """A read-only client for the cluster of ``kubeconfig``/``context`` (or KUBECONFIG, ~/.kube/config,
    the in-cluster service account). Nothing is sent yet."""
    redact = _Redactor()
    cfg, source = _load_configuration(kubeconfig, context, os.environ if env is None else env, redact)
    return KubeClient(cfg, source, redact, timeout=timeout, retries=retries, sleep=sleep)


def read_objects(kubeconfig: str | os.PathLike[str] | None = None, context: str | None = None, *,
                 namespaces: Iterable[str] | None = None,
                 on_progress: ProgressCallback | None = None,
                 timeout: float = DEFAULT_TIMEOUT, page_size: int = DEFAULT_PAGE_SIZE,
                 retries: int = DEFAULT_RETRIES, workers: int = DEFAULT_WORKERS,
                 env: Mapping[str, str] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 client: KubeClient | None = None) -> LiveObjects:
    """Every object of ``KINDS`` the cluster holds (namespaced kinds limited to ``namespaces``
    when given), stripped (``strip_object``), with the warnings of kinds read only in part.

    Raises ``ClusterAccessError`` for anything that stops the read.
    """
    own = client is None
    if client is None:
        client = connect(kubeconfig, context, timeout=timeout, retries=retries, env=env, sleep=sleep)
    ns_filter = sorted(set(namespaces)) if namespaces else None
    reader = ListReader(client, ns_filter, on_progress, max(1, page_size))
    try:
        objects, warnings = reader.read_all(max(1, workers))
    finally:
        if own:
            client.close()
    if ns_filter is not None:
        objects["Namespace"] = [n for n in objects.get("Namespace", ())
                                if (n.get("metadata") or {}).get("name") in ns_filter]
    if client.insecure:
        warnings.insert(0, client.insecure_warning())
    return LiveObjects(objects, warnings, client.source.description, client.source.context,
                       client.server, ns_filter, dict(reader.versions))


def read_cluster(kubeconfig: str | os.PathLike[str] | None = None, context: str | None = None, *,
                 on_progress: ProgressCallback | None = None, **kwargs: Any) -> ClusterState:
    """The live cluster as a ``ClusterState``, built by the loaders of the fixture path.

    The warnings of the read (a kind that could not be listed) are in ``access_warnings`` of the
    returned state; ``ClusterState.warnings`` keeps its own meaning.
    """
    live = read_objects(kubeconfig, context, on_progress=on_progress, **kwargs)
    return cluster_state_of(live)


def cluster_state_of(live: LiveObjects) -> ClusterState:
    """``live``'s objects through ``ClusterState.from_documents``, as if read from a snapshot."""
    import gc

    where = f"<live cluster: {live.source}>"
    with gc_paused():
        docs = [Document(obj, where, None) for obj in live.all()]
        state = ClusterState.from_documents(docs)
        gc.freeze()  # long-lived objects, as load_cluster does for files
    state.access_warnings = list(live.warnings)  # type: ignore[attr-defined]
    state.live_source = live.source  # type: ignore[attr-defined]
    return state


class ListReader:
    """Lists every kind, a few at a time, and turns failures into errors or warnings."""

    def __init__(self, client: KubeClient, namespaces: list[str] | None,
                 on_progress: ProgressCallback | None, page_size: int) -> None:
        self.client = client
        self.namespaces = namespaces
        self.page_size = page_size
        self._on_progress = on_progress
        self._progress_lock = threading.Lock()
        self._stop = threading.Event()
        #: kind -> resourceVersion of its (first) list page.
        self.versions: dict[str, str] = {}

    def progress(self, kind: str, count: int) -> None:
        if self._on_progress is not None:
            with self._progress_lock:
                self._on_progress(kind, count)

    def read_all(self, workers: int) -> tuple[dict[str, list[dict]], list[str]]:
        results: dict[str, list[dict]] = {}
        warnings: dict[str, str] = {}
        # Nodes first and alone: a 401, an unreachable server or a missing permission shows
        # up once, before several threads run into it together.
        first, rest = KINDS[0], KINDS[1:]
        self._collect(first, results, warnings)
        if workers == 1:
            for kind in rest:
                self._collect(kind, results, warnings)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kschedctl-list") as pool:
                futures = [(kind, pool.submit(self._read_kind, kind)) for kind in rest]
                error: BaseException | None = None
                for kind, future in futures:
                    try:
                        items, warning = future.result()
                    except _Cancelled:
                        continue
                    except BaseException as exc:  # the first failure wins; the others stop
                        if error is None:
                            error = exc
                            self._stop.set()
                        continue
                    results[kind.kind] = items
                    if warning:
                        warnings[kind.kind] = warning
                if error is not None:
                    raise error
        ordered = {k.kind: results.get(k.kind, []) for k in KINDS}
        return ordered, [warnings[k.kind] for k in KINDS if k.kind in warnings]

    def _collect(self, kind: Kind, results: dict[str, list[dict]], warnings: dict[str, str]) -> None:
        items, warning = self._read_kind(kind)
        results[kind.kind] = items
        if warning:
            warnings[kind.kind] = warning

    def _read_kind(self, kind: Kind) -> tuple[list[dict], str | None]:
        """One kind's objects, or ``[]`` and a warning when the scheduler can do without it."""
        self.progress(kind.kind, 0)
        scopes: list[str | None] = [None]
        if kind.namespaced and self.namespaces is not None:
            scopes = list(self.namespaces)
        items: list[dict] = []
        for namespace in scopes:
            try:
                items.extend(self._list(kind, namespace, len(items)))
            except HttpError as exc:
                return [], self._http_failure(kind, namespace, exc)
            except Unreachable as exc:
                raise ClusterAccessError(
                    f"cannot reach the API server at {self.client.server} ({self.client.source.description}): "
                    f"{exc}") from None
        return items, None

    def _list(self, kind: Kind, namespace: str | None, before: int) -> list[dict]:
        path = kind.path(namespace)
        items: list[dict] = []
        token: str | None = None
        restarted = False
        while True:
            if self._stop.is_set():
                raise _Cancelled()
            query = [("limit", str(self.page_size))]
            if kind.kind == "Pod":
                query.append(("fieldSelector", POD_FIELD_SELECTOR))
            if token:
                query.append(("continue", token))
            try:
                page = self.client.get_json(path, query)
            except HttpError as exc:
                if exc.status == 410 and token and not restarted:
                    # The continue token expired (the list took longer than etcd's compaction
                    # window): start this kind again, once.
                    restarted, token, items = True, None, []
                    self.progress(kind.kind, before)
                    continue
                raise
            if token is None and self.namespaces is None:
                version = (page.get("metadata") or {}).get("resourceVersion")
                if isinstance(version, str) and version:
                    self.versions[kind.kind] = version
            page_items = page.get("items")
            if page_items is None:
                page_items = []
            if not isinstance(page_items, list):
                raise ClusterAccessError(f"{self.client.server}{path}: the answer has no list of items")
            for item in page_items:
                if isinstance(item, dict):
                    items.append(strip_object(item, kind))
            self.progress(kind.kind, before + len(items))
            token = (page.get("metadata") or {}).get("continue") or None
            if not token:
                return items

    def _http_failure(self, kind: Kind, namespace: str | None, exc: HttpError) -> str | None:
        """A final error answer for ``kind``: raise when the read cannot go on, else the warning."""
        scope = f'in namespace "{namespace}"' if namespace else "at the cluster scope"
        server_says = f": {exc.message}" if exc.message else ""
        where = f"{self.client.server} ({self.client.source.description})"
        if exc.status == 401:
            raise ClusterAccessError(
                f"the API server at {where} rejected the credentials (401 Unauthorized){server_says}. "
                "They may have expired: log in again or refresh the token, then retry")
        if exc.status == 404 and kind.crd:
            return None  # the CRD is not installed: nothing to read, nothing to say
        if exc.status == 403:
            what = f"list {kind.resource} ({kind.kind}) {scope}"
            if kind.required:
                raise ClusterAccessError(
                    f"not allowed to {what} (403 Forbidden){server_says}. kschedctl needs the verbs get and "
                    f"list on {kind.resource}; see the read-only ClusterRole in the README")
            return (f"not allowed to {what} (403 Forbidden: verb list); carrying on without "
                    f"{kind.kind} objects: {kind.affects}")
        if exc.status == 404:
            if kind.required:
                raise ClusterAccessError(f"the API server at {where} does not serve {kind.resource} "
                                         f"(404 Not Found at {kind.path(namespace)})")
            return (f"the API server does not serve {kind.resource} {kind.api_version} (404); carrying on "
                    f"without {kind.kind} objects: {kind.affects}")
        status = f"{exc.status} {exc.reason}".strip()
        transient = exc.status >= 500 or exc.status == 429
        if kind.required or not transient:
            raise ClusterAccessError(f"listing {kind.resource} {scope} failed at {where}: {status}{server_says}"
                                     + (f" (after {self.client.retries + 1} attempts)" if transient else ""))
        return (f"listing {kind.resource} {scope} failed ({status}{server_says}, after "
                f"{self.client.retries + 1} attempts); carrying on without {kind.kind} objects: {kind.affects}")
