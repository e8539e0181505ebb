"""Self-play PPO whose torch policy acts on the batched engine's own arrays (issue 40, point 4)."""
