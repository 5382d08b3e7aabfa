"""Notebook helpers (graph drawing, plots, datasets); chapters never import this package."""
