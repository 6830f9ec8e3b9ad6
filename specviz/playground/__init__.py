"""The Playground's library side: presets, pure state transitions, views, sharing and explanations.

Nothing here imports Streamlit; ``views/playground.py`` only reads widgets, calls these
functions and renders what they return.
"""
