"""Streamlit helpers: the only package module that imports streamlit (STYLE.md practice 15)."""
