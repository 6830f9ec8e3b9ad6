"""Real language models for the exact speculative sampler (torch lives here, never in the core)."""
