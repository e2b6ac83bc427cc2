"""Shared test helpers."""

from hypothesis import settings

# Property tests run the same examples on every run: a pull request's CI fails for what it changed,
# not for an input the random search happened to reach that day. Explore more with
# HYPOTHESIS_PROFILE=explore (random examples, ten times as many).
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "default"))
