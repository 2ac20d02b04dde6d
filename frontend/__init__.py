"""Python-source frontend: parse a kernel, reject what is unsupported, lift it into a Scop."""

from .lift import lift

__all__ = ["lift"]
