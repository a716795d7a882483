"""One episode: the agent loop, its four tools, what the model is told, the step records, the run
folder it writes, and the stage-reporting protocol."""
