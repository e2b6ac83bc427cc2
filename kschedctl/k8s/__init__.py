"""Pure functions on API-shaped dicts: quantities, resources, selectors, tolerations, priority."""
