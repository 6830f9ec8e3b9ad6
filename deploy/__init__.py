"""Hosting specviz for a class: several Streamlit processes behind nginx (scripts/serve.py, docs/hosting.md).

`nginx` writes the nginx configuration (a pure function of the site), `static` the precompressed bundle,
`supervisor` starts and stops the processes, `workers` starts the Streamlit processes and checks their health.
"""
