"""Transcripts without a run: reading, history, turns, pricing, DataFrames and metrics.

Nothing here imports the runtime, the chat brain or a run.
"""
