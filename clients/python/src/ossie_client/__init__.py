"""Python client of the Ossie semantic layer's HTTP API."""

from .client import Client, OssieError

__all__ = ["Client", "OssieError"]
