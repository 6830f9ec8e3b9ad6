"""How the app's charts behave in the browser: a mode bar with the download buttons only (figures for slides).

``config(filename)`` is plotly's config for ``st.plotly_chart``: the mode bar shown, with plotly's own
download button set to SVG (vector, for slides and handouts) at twice the size; the page script
``assets/plotly_downloads.js`` (loaded once per tab by app.py) puts a PNG button beside it on every chart,
and an SVG button beside the PNG one on charts drawn with plotly's default config. Both are drawn by the
browser from the chart on screen: no server work. ``python -m specviz export`` writes a round's figures
from a link or a file instead (``specviz.export``).
"""

from __future__ import annotations

DOWNLOAD_SCALE = 2  # a downloaded PNG at twice the chart's size on screen: sharp on a slide


def config(filename: str = "specviz-figure") -> dict:
    """The chart's plotly config: the mode bar with the download button (SVG; PNG beside it), nothing else."""
    return {"displayModeBar": True, "displaylogo": False, "modeBarButtons": [["toImage"]],
            "toImageButtonOptions": {"format": "svg", "filename": filename, "scale": DOWNLOAD_SCALE}}
