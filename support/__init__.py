"""Notebook helpers (graph drawing, plots, the unbroadcast diagram, datasets); chapters never
import this package."""
