"""What the environment says of a run, never the model: grading in a fresh container, the final
truth of a run, the live gold before each reply, circumvention routes, the counterfactual onset.
What builds and proves the catalog itself is in proving/."""
