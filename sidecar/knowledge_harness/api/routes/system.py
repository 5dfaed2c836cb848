"""System routes: shutdown and the agent's MCP connection, both the person's."""

from fastapi import APIRouter, Request
from pydantic import BaseModel

from ...errors import NotFound
from ...machine_config import AgentConnection, agent_connection, agent_token_path
from ..deps import Ctx, PersonActor

router = APIRouter(prefix="/v1", tags=["system"])


class ShutdownAccepted(BaseModel):
    status: str


@router.post("/shutdown", response_model=ShutdownAccepted, status_code=202)
def shutdown(ctx: Ctx, _person: PersonActor) -> ShutdownAccepted:
    """Ask the sidecar to stop gracefully (the plugin calls this on unload). Person token only."""
    ctx.request_shutdown()
    return ShutdownAccepted(status="shutting_down")


@router.get("/agent-connection", response_model=AgentConnection)
def get_agent_connection(ctx: Ctx, _person: PersonActor, request: Request) -> AgentConnection:
    """The agent token and the Claude Code / Codex lines that connect an agent to /mcp. Person token only:
    the person hands the agent its own credential, never theirs."""
    token = ctx.settings.agent_token
    if token is None:
        raise NotFound("This sidecar has no agent token.")
    port = request.app.state.port_ref.port or ctx.settings.port
    path = agent_token_path(ctx.settings.vault)
    token_file = path if path.exists() and path.read_text(encoding="utf-8").strip() == token else None
    return agent_connection(token, f"http://{_url_host(ctx.settings.host)}:{port}/mcp", token_file)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
