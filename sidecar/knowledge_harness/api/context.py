"""What every door needs for one vault: settings, the vault and its read catalog."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..settings import Settings
from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault


@dataclass
class AppContext:
    settings: Settings
    vault: Vault
    catalog: NoteCatalog
    request_shutdown: Callable[[], None] = field(default=lambda: None)
    mcp_transport: str = "http"  # "stdio" when `kh mcp` serves the tools

    @classmethod
    def create(cls, settings: Settings) -> AppContext:
        vault = Vault.open(settings.vault)
        return cls(settings=settings, vault=vault, catalog=NoteCatalog(vault))
