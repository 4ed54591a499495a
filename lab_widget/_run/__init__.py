"""Starting, finding and driving runs: the :class:`~lab_widget.Run` façade, its backends,
the launch, the live registry and ``runs()``.
"""
