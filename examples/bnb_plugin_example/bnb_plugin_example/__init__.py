"""An example policy plugin for bnb-sim (see README.md).

The entry point ``cautious`` (``pyproject.toml``) names
:data:`bnb_plugin_example.cautious.CAUTIOUS`.
"""

from __future__ import annotations

__all__ = ["cautious"]
