"""The step player: each trace event as a frame of plain data, drawn and animated by one ES module in the browser.

Python decides what a step means; the browser only draws primitives. ``frames`` turns every trace event into a
frame (bar sets with their exact fractions as text, the draw strip with u and its segments, the tree's nodes with
their states, the committed-text chips, the caption, the headline and the narration's lines), one builder per
event class in ``frames.BUILDERS``. ``rounds.payload`` gathers a whole round's frames with the tables and the
history that go with them: the player receives a round once and steps through it with no server round trip.
``browser/`` holds the player itself (``player.html``, ``player.css``, ``player.js``: no build step, nothing
fetched at run time), read by ``files``; the Playground mounts it with Streamlit's custom components v2
(``specviz.app.playground.player``) and ``deck`` writes it, with a round's frames, into one offline HTML file.
"""

from . import traversal_frames  # noqa: F401 - registers traversal verification's builders in frames.BUILDERS
