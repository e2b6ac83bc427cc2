"""``python -m kschedctl.config.schema``: regenerate the shipped JSON Schemas."""

from kschedctl.config.schema import write_all

write_all()
