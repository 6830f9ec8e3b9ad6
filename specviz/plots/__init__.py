"""Pure figure builders: data in, plotly Figure out (no Streamlit)."""
