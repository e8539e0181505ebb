"""Self-play PPO whose torch policy acts on the batched engine's own arrays."""
