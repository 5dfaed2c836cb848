from fastapi import APIRouter
from pydantic import BaseModel

from ..deps import Ctx

router = APIRouter(prefix="/v1", tags=["system"])


class ShutdownAccepted(BaseModel):
    status: str


@router.post("/shutdown", response_model=ShutdownAccepted, status_code=202)
def shutdown(ctx: Ctx) -> ShutdownAccepted:
    """Ask the sidecar to stop gracefully (the plugin calls this on unload)."""
    ctx.request_shutdown()
    return ShutdownAccepted(status="shutting_down")
