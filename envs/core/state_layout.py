"""Named offsets into a flat state vector, laid out after the shared header."""

from .contract import HEADER_SIZE


class Layout:
    """Hands out consecutive blocks of a flat state vector.

    >>> lay = Layout(); SCORE = lay.block("score", 5); size = lay.size
    """

    def __init__(self, start: int = HEADER_SIZE):
        self.size = start
        self.blocks = {}

    def block(self, name: str, length: int = 1) -> int:
        """Reserve ``length`` slots and return the offset of the first one."""
        offset = self.size
        self.blocks[name] = (offset, length)
        self.size += length
        return offset
