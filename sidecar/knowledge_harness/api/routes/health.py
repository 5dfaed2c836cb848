import logging
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from ... import API_LEVEL, MIN_PLUGIN_API_LEVEL, __version__

router = APIRouter(tags=["system"])
log = logging.getLogger(__name__)


class Health(BaseModel):
    status: str
    version: str
    api_level: int = Field(description="The level of this sidecar's HTTP surface (the plugin needs at least its own).")
    min_plugin_api_level: int = Field(description="The oldest plugin API level this sidecar serves.")
    plugin_compatible: bool | None = Field(
        default=None, description="Whether the plugin that sent `plugin_api` is new enough; null when it sent none."
    )


@router.get("/health", response_model=Health)
def health(
    plugin_api: Annotated[int | None, Query(ge=0, le=1_000_000, description="The asking plugin's API level.")] = None,
    plugin_version: Annotated[str | None, Query(max_length=40, description="The asking plugin's version.")] = None,
) -> Health:
    """Liveness and the version handshake: the plugin sends its version and API level, the sidecar
    answers with its own and whether it still serves that plugin."""
    compatible = None if plugin_api is None else plugin_api >= MIN_PLUGIN_API_LEVEL
    if compatible is False:
        log.warning(
            "plugin %s (API level %d) is older than this sidecar serves (%d): update the plugin",
            plugin_version or "?",
            plugin_api,
            MIN_PLUGIN_API_LEVEL,
        )
    return Health(
        status="ok",
        version=__version__,
        api_level=API_LEVEL,
        min_plugin_api_level=MIN_PLUGIN_API_LEVEL,
        plugin_compatible=compatible,
    )
