"""Connection limits for the HTTP receivers (aiohttp). I/O: sockets only, no payloads.

An idle or half-sent connection costs a file descriptor and nothing else, so tens of thousands of them
(no token needed to open one) used to exhaust the file limit and lock good clients out. Here:
- a connection must deliver a request's headers within `header_timeout_s` of opening, or of its
  previous response (an idle keep-alive connection counts as waiting too), else it is closed;
- at most `max_connections` are open; a new one over the cap closes the longest-waiting connection
  that has not sent its headers (good clients keep getting in while a flood of half-headers is shed),
  or, when every connection is busy with a request, is itself closed;
- each closing is counted (`connections_closed:<reason>`: header_timeout, evicted, refused) in the
  stats the pipeline exports (`aem_receiver_connections_closed_total{reason}`), never logged per item.

Built on aiohttp's own `RequestHandler` (a subclass) and server request factory; a `web.AppRunner`
built by `guarded_runner` applies it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import MutableMapping
from typing import Any, cast

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server


class ConnectionGuard:
    """Which connections are open and which are waiting for headers (oldest first)."""

    def __init__(
        self, max_connections: int, header_timeout_s: float, stats: MutableMapping[str, Any]
    ) -> None:
        self.max_connections = max_connections
        self.header_timeout_s = header_timeout_s
        self.stats = stats
        self.open = 0
        self.waiting: OrderedDict[_GuardedHandler, asyncio.TimerHandle] = OrderedDict()

    def count(self, reason: str) -> None:
        key = f"connections_closed:{reason}"
        self.stats[key] = self.stats.get(key, 0) + 1

    def admit(self, handler: _GuardedHandler) -> bool:
        if self.open >= self.max_connections:
            if not self.waiting:
                self.count("refused")
                return False
            oldest, timer = self.waiting.popitem(last=False)
            timer.cancel()
            self.count("evicted")
            oldest.close_now()
        self.open += 1
        self.wait(handler)
        return True

    def wait(self, handler: _GuardedHandler) -> None:
        """`handler` owes its next request's headers: close it if they are not in within the timeout."""
        self.done_waiting(handler)
        loop = asyncio.get_running_loop()
        self.waiting[handler] = loop.call_later(self.header_timeout_s, self._expire, handler)

    def done_waiting(self, handler: _GuardedHandler) -> None:
        timer = self.waiting.pop(handler, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, handler: _GuardedHandler) -> None:
        if self.waiting.pop(handler, None) is not None:
            self.count("header_timeout")
            handler.close_now()

    def left(self, handler: _GuardedHandler) -> None:
        self.done_waiting(handler)
        self.open = max(0, self.open - 1)


class _GuardedHandler(RequestHandler):
    __slots__ = ("_admitted", "_guard", "_transport")

    def __init__(self, manager: Server, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._guard = guard
        self._admitted = False
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        if not self._guard.admit(self):
            self._transport.abort()  # over the cap with nothing to shed: this one goes, at once
            return
        self._admitted = True
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self._admitted:
            return
        self._admitted = False
        self._guard.left(self)
        super().connection_lost(exc)

    def close_now(self) -> None:
        if self._transport is not None:
            self._transport.abort()


class _GuardedServer(Server):
    guard: ConnectionGuard

    def __call__(self) -> RequestHandler:
        return _GuardedHandler(self, self.guard, loop=self._loop, **self._kwargs)


class _GuardedRunner(web.AppRunner):
    def __init__(self, app: web.Application, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._guard = guard

    async def _make_server(self) -> Server:
        server = await super()._make_server()
        server.__class__ = _GuardedServer  # same state; only the handler class differs
        server.guard = self._guard  # type: ignore[attr-defined]
        factory = server.request_factory
        guard = self._guard

        def headers_in(message: Any, payload: Any, protocol: Any, writer: Any, task: Any) -> Any:
            guard.done_waiting(protocol)  # a request's headers are in: no longer waiting
            return factory(message, payload, protocol, writer, task)

        server.request_factory = headers_in
        return server


def guarded_runner(app: web.Application, guard: ConnectionGuard, **kwargs: Any) -> web.AppRunner:
    """An AppRunner whose connections `guard` limits; call before the app is frozen (setup)."""

    async def rearm(request: web.Request, response: web.StreamResponse) -> None:
        if isinstance(request.protocol, _GuardedHandler):  # answered: now it owes the next headers
            guard.wait(request.protocol)

    app.on_response_prepare.append(rearm)
    return _GuardedRunner(app, guard, **kwargs)
