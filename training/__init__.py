"""Self-play training scripts for monster-zoo (arriving in a later issue; see README.md)."""
