"""The app side of specviz: the Streamlit helpers of the pages (session state, callbacks, page parts).

The only package under specviz/ that imports Streamlit; the pages in views/ read widgets and call
it, and it calls the pure library (specviz.playground, specviz.plots, ...).
"""
