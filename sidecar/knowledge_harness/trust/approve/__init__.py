"""The approval wing: plans (plan.py), the typed run record (record.py), applying a plan (apply.py) and
closing runs a crash interrupted (recover.py). trust/approve/batch.py is the door the CLI, REST and tests use."""
