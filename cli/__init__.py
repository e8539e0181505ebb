"""The ``monster-zoo`` command line, above everything else: one module per command."""
