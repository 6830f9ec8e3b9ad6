"""The Playground's app side: session state, callbacks and page parts (Streamlit), one module per part.

* ``session``: the typed session-state declaration (every key, its default and lifetime; tab labels).
* ``controls``: a scenario put into every control, and the scenario the controls describe (preset, undo).
* ``links``: links and files opened into the controls; the address bar written.
* ``rule_switch``: the Verification switch (one ``Choice`` per family of playable rules) and its controls.
* ``sidebar``: presenter mode, the preset box, the switch, depth and seed, the filters.
* ``player``: the step player (a custom component): a whole round sent once, the browser's step and requests read.
* ``transport``: what the player asks of the server: Step and Back past a round, Next round, Reset, New seed, Jump.
* ``lecture``: lecture scripts walked by Step and Back, the banner's words, the Share tab's lecture section.
* ``lecture_link``: a running lecture in the link and the server's store of scripts, so a reload keeps it.
* ``animation``: the Animation tab's fragment: the player mounted at the session's step.
* ``round_cache``: each round's frames built once per (scenario, round, presenter) for every session (bounded).
* ``tabs``: the tab bar, and one module per other tab (``proof``, ``many_rounds``, ``compare``, ``share``).
* ``weights``: the weights tab's editors and their edits.
* ``messages``: the refusal box (with Undo), unread links, bug reports, ``failures`` around each part.

A Step's path is in docs/design.md ("Reading the code: a Step's path").
"""
