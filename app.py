"""LabourCrew dashboard entry point: `streamlit run app.py` (or `make run`)."""

import streamlit as st

from labourcrew.ui.statute_browser import statute_browser

st.set_page_config(page_title="LabourCrew — বাংলাদেশ শ্রম আইন", page_icon="⚖️", layout="wide")
st.title("LabourCrew — বাংলাদেশ শ্রম আইন, ২০০৬")
st.caption("প্রতিটি দাবি আইনের হুবহু পাঠে প্রমাণিত। এটি আইনি পরামর্শ নয়।")
statute_browser()
