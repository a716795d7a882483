"""Where episodes run: the Docker engine, layered images, hardened containers, the exec channel,
live environments (services, sidecars, card setup, probe) and injected faults."""
