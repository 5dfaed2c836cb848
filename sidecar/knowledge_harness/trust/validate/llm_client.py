"""One client for OpenAI-compatible chat-completions endpoints (Workers AI, Ollama, llama.cpp
server, vLLM, OpenAI), shared by the `openai_compat` judge and the pipeline's `openai_compat`
agent backend, so both speak the wire format, send the key and report failures the same way.

The key is read from the environment variable *named* by `api_key_env` (never stored in a file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx

from ...machine_config import RESERVED_KEY_VARIABLES


class ChatError(Exception):
    """The endpoint could not give a chat completion; `transient` says whether a retry may help."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.transient = transient
        self.status = status


@dataclass
class ChatClient:
    base_url: str
    model: str
    api_key_env: str | None = None
    timeout_seconds: float = 60.0
    transport: httpx.BaseTransport | None = None

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            if self.api_key_env in RESERVED_KEY_VARIABLES:  # the sidecar's own credentials never leave it
                raise ChatError(
                    f"{self.api_key_env} holds the sidecar's credential; it is never sent.", transient=False
                )
            key = os.environ.get(self.api_key_env, "").strip()
            if not key:
                raise ChatError(f"The environment variable {self.api_key_env} is empty.", transient=False)
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def connect(self) -> httpx.Client:
        return httpx.Client(timeout=self.timeout_seconds, transport=self.transport, trust_env=False)

    def complete(
        self,
        client: httpx.Client,
        messages: list[dict[str, str]],
        *,
        response_format: dict[str, Any] | None = None,
        retry_without_format: bool = True,
    ) -> str:
        """The assistant message's text. A server that refuses `response_format` (HTTP 400/422)
        is asked again without it when `retry_without_format`, relying on the instructions alone."""
        response = self._post(client, messages, response_format)
        if response_format is not None and retry_without_format and response.status_code in (400, 422):
            response = self._post(client, messages, None)
        if response.status_code != 200:
            transient = response.status_code == 429 or response.status_code >= 500
            raise ChatError(
                f"The model answered HTTP {response.status_code}.", transient=transient, status=response.status_code
            )
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ChatError("The model's response is not a chat completion.", transient=True) from exc
        if not isinstance(content, str):
            raise ChatError("The model's message has no text content.", transient=True)
        return content

    def _post(
        self, client: httpx.Client, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> httpx.Response:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if response_format is not None:
            body["response_format"] = response_format
        try:
            return client.post(f"{self.base_url}/chat/completions", json=body, headers=self.headers())
        except httpx.TimeoutException as exc:
            raise ChatError(
                f"The model at {self.base_url} did not answer within {self.timeout_seconds:g} s.", transient=True
            ) from exc
        except httpx.HTTPError as exc:
            raise ChatError(
                f"The model at {self.base_url} could not be reached ({type(exc).__name__}).", transient=True
            ) from exc
