"""The agent's folder: the seed, the git workspace, attribution scrubbing and the sandbox."""
