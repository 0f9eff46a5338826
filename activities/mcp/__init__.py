"""The MCP connector: the client of declared MCP servers (streamable HTTP or stdio).

`session.py` opens one exchange with a server, `pin.py` hashes its advertised tools,
`resolve.py` decides what a pinned server offers, `call.py` calls one tool and maps
every answer to one `ToolResult`, and `activities.py` exposes both to Temporal. The
`mcp` SDK is imported here only, when a server is reached.
"""

import logging

# The worker's logging setup shows these warnings; a command that reports the same facts
# itself (`signoff mcp tools`) does not print them twice through logging's last resort.
logging.getLogger(__name__).addHandler(logging.NullHandler())
