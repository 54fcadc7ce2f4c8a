"""Pure figure and HTML builders for the dashboard: plotly charts, pyvis graphs, highlighted passages.

Nothing here imports streamlit or touches files: builders take records and return a
``plotly.graph_objects.Figure`` or an HTML string, so they are tested without a browser.
"""

from labourcrew.viz.style import FONT_FAMILY

__all__ = ["FONT_FAMILY"]
