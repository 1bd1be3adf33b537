"""Streamlit-free helpers of the app: reading and preparing data, URL state."""
