"""What the environment says, never the model: grading in a fresh container, the final truth of a
run, the live gold before each reply, task validation and card proofs."""
