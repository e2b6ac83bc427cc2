"""Built-in plugins, one module per plugin, named after it; ``registry`` lists them all."""
