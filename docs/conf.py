# Sphinx configuration of simasio's documentation: build it with
# scripts/docs.sh, which runs Doxygen and generates the reference pages first.
#
# The guides are Markdown (MyST); the API reference comes from the public
# headers' comments through Doxygen's XML and Breathe. The build runs with
# warnings as errors: a broken cross-reference or an undocumented public
# name fails it.
import os

project = "simasio"
author = "the simasio authors"
copyright = "2026, the simasio authors"

extensions = ["myst_parser", "breathe"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "tools"]

myst_heading_anchors = 3  # links to sections by their slugs, as GitHub makes them
myst_enable_extensions = ["colon_fence"]

_xml = os.environ["SIMASIO_DOXYGEN_XML"]  # scripts/docs.sh builds the site
breathe_projects = {"simasio": _xml + "/simasio", "simasio_asio": _xml + "/simasio_asio"}
breathe_default_project = "simasio"
breathe_default_members = ("members",)
primary_domain = "cpp"
highlight_language = "none"  # a fence without a language is plain text (program output)

html_theme = "furo"
html_title = "simasio"
html_static_path = []
html_show_sourcelink = False
html_copy_source = False
