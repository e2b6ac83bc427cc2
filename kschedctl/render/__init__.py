"""Reports: the only package that imports rich. Renders plain result objects, never computes."""
