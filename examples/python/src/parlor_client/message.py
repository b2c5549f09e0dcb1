"""A protocol message, as decoded: one JSON object (the protocol
reference's "Conventions")."""

from typing import Any, Dict

Message = Dict[str, Any]
