"""The agent in the kernel: the notebook's live kernel offered to a run's agent as the tools
of an MCP server named ``kernel`` (``Run(..., kernel=True)``).
"""

from ._desk import waiting_cell_chore
from ._inkernel import take_cells
from ._spec import kernel_tool_server, this_kernel_connection_file

__all__ = [
    "kernel_tool_server",
    "serve",
    "take_cells",
    "this_kernel_connection_file",
    "waiting_cell_chore",
]


def serve(argv: list[str]) -> int:
    """Serve the tools over stdio (``python -m lab_widget kernel-tools ...``)."""
    from ._server import main  # noqa: PLC0415 (the MCP SDK loads in the server's process only)

    return main(argv)
