"""How agents speak, below both the runtime (agents/) and the annotator (analysis/): neither imports
the other to know an agent's records."""
