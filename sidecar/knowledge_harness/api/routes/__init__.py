"""REST routers. Each module exposes `router`; add a module here to add routes."""

from fastapi import APIRouter

from . import batches, health, index, jobs, notes, onboarding, pipeline, system, trust, validate

ROUTERS: list[APIRouter] = [
    health.router,
    notes.router,
    system.router,
    trust.router,
    onboarding.router,
    validate.router,
    index.router,
    pipeline.router,
    batches.router,
    jobs.router,
]
